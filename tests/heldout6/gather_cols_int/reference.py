"""Gather along the last dimension, as torch.gather(x, 1, idx).

x is (67, 500) int32 with values in [-1000, 1000); idx is (67, 300) int64 with entries in
[0, 500) (repeats allowed); out[i, j] = x[i, idx[i, j]] is (67, 300) int32 and must be exact.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, idx)


def get_inputs():
    x = torch.randint(-1000, 1000, (67, 500), dtype=torch.int32)
    idx = torch.randint(0, 500, (67, 300), dtype=torch.int64)
    return [x, idx]


def get_init_inputs():
    return []
