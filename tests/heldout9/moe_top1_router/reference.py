"""Top-1 mixture-of-experts routing: the chosen expert and its softmax probability, in float32.

logits is (TOKENS, EXPERTS) fp32 router logits. probs = softmax(logits, dim=-1); the outputs are
(weight, expert): weight[t] = max_e probs[t, e] (fp32, (TOKENS,)) and expert[t] its index
(int64, (TOKENS,)), as torch.max returns them.
"""

import torch
import torch.nn as nn

TOKENS = 500
EXPERTS = 60


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor):
        probs = torch.softmax(logits, dim=-1)
        weight, expert = probs.max(dim=-1)
        return weight, expert


def get_inputs():
    logits = 2.0 * torch.randn(TOKENS, EXPERTS)
    return [logits]


def get_init_inputs():
    return []
