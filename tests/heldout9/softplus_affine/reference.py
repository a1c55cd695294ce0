"""Per-channel affine followed by softplus with beta and threshold, in float32.

x is (ROWS, CHANNELS) fp32; the module holds a per-channel weight and bias (CHANNELS,).
z = x * weight + bias (broadcast along the rows), out = F.softplus(z, beta=2, threshold=20):
log(1 + exp(2 z)) / 2, and z itself where 2 z > 20. The biases are spread so that many z are
well below zero, where softplus(z) ~ exp(2 z) / 2 is small.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 200
CHANNELS = 300
BETA = 2.0
THRESHOLD = 20.0


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(channels) + 0.5)
        self.bias = nn.Parameter(3.0 * torch.randn(channels) - 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = x * self.weight + self.bias
        return F.softplus(z, beta=BETA, threshold=THRESHOLD)


def get_inputs():
    x = torch.randn(ROWS, CHANNELS)
    return [x]


def get_init_inputs():
    return [CHANNELS]
