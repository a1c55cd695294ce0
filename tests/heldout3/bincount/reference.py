"""Histogram of integer class ids: torch.bincount(x, minlength=100).

x is (10000,) int64 with values in [0, 100); the output is (100,) int64 counts. Integer outputs
are compared exactly.
"""

import torch
import torch.nn as nn

N, BINS = 10000, 100


class Model(nn.Module):
    def __init__(self, num_bins: int):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.bincount(x, minlength=self.num_bins)


def get_inputs():
    # a skewed distribution: low ids are much more frequent, as with real labels
    x = (torch.rand(N) ** 2 * BINS).to(torch.int64).clamp_(0, BINS - 1)
    return [x]


def get_init_inputs():
    return [BINS]
