"""Histogram of values with a fixed range: torch.histc(x, bins=64, min=-4, max=4).

x is (NUM_VALUES,) fp32 on a 1/16 grid (quantised activations, round(24 N(0, 1)) / 16), so many
values fall exactly on bin edges, including the upper limit 4.0. Bin i holds the values in
[-4 + i / 8, -4 + (i + 1) / 8); a value equal to max goes into the last bin; values outside
[min, max] are ignored. Returns the 64 counts as fp32 (histc keeps the input dtype).
"""

import torch
import torch.nn as nn

NUM_VALUES = 20011
BINS = 64
LOW = -4.0
HIGH = 4.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.histc(x, bins=BINS, min=LOW, max=HIGH)


def get_inputs():
    x = torch.round(24.0 * torch.randn(NUM_VALUES)) / 16.0
    return [x]


def get_init_inputs():
    return []
