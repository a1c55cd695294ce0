"""Top-2 gating of a mixture-of-experts router (Mixtral style), fp32.

logits is (TOKENS, EXPERTS). For each token the two largest logits l1 >= l2 (experts e1, e2) are
kept and renormalised by a softmax over the pair: out[t, e1] = 1 / (1 + exp(l2 - l1)),
out[t, e2] = exp(l2 - l1) / (1 + exp(l2 - l1)); every other expert gets 0. Dense (TOKENS, EXPERTS)
output.
"""

import torch
import torch.nn as nn

TOKENS = 1001
EXPERTS = 40


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        vals, idx = torch.topk(logits, 2, dim=-1)
        weights = torch.softmax(vals, dim=-1)
        return torch.zeros_like(logits).scatter(-1, idx, weights)


def get_inputs():
    logits = 3.0 * torch.randn(TOKENS, EXPERTS, dtype=torch.float32)
    return [logits]


def get_init_inputs():
    return []
