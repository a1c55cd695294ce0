"""Repetition penalty on next-token logits (HF RepetitionPenaltyLogitsProcessor), gather / scatter.

logits (B, V) fp32, ids (B, L) int64: the tokens generated so far by each sequence, with repeats.
For every token id in a row's history: logit < 0 -> logit * PENALTY, else logit / PENALTY,
applied once per distinct token (a scatter of the gathered, penalised scores); other logits pass
through. PENALTY from the constructor (1.3). Histories draw from a small part of the vocabulary,
so ids repeat often, also across the row.
"""

import torch
import torch.nn as nn

B = 8
V = 1000
L = 50


class Model(nn.Module):
    def __init__(self, penalty: float):
        super().__init__()
        self.penalty = penalty

    def forward(self, logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        score = torch.gather(logits, 1, ids)
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        return logits.scatter(1, ids, score)


def get_inputs():
    logits = 4.0 * torch.randn(B, V)
    ids = torch.randint(1, 200, (B, L))
    ids[:, ::7] = ids[:, :1]
    return [logits, ids]


def get_init_inputs():
    return [1.3]
