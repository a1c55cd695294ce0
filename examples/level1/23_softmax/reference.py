"""Softmax over the last dimension: torch.softmax(x, dim=1) for x of shape (64, 1024), fp32.

The task's inputs are standard normal. A kernel must also be right for large-magnitude inputs
(logits of a few hundred are common): exp overflows fp32 above ~88.7.
"""

import torch
import torch.nn as nn

BATCH = 64
DIM = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


def get_inputs():
    x = torch.randn(BATCH, DIM, dtype=torch.float32)
    return [x]


def get_init_inputs():
    return []
