"""Inclusive cumulative sum along dim 1 of an fp32 (40, 2000) tensor of positive values (torch.rand).

Positive inputs keep the prefix sums away from zero: with signed inputs a prefix sum that crosses zero
is a cancellation that no fp32 scan gets right, while torch's CPU cumsum accumulates in double.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.rand(40, 2000, dtype=torch.float32)]


def get_init_inputs():
    return []
