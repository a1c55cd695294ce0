"""GroupNorm: fp32 (6, 24, 10, 7) input, 4 groups of 6 channels, per-channel affine weight and bias, eps = 1e-5."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, CHANNELS, H, W = 6, 24, 10, 7
GROUPS = 4
EPS = 1e-5


class Model(nn.Module):
    def __init__(self, groups: int, channels: int, eps: float):
        super().__init__()
        self.groups = groups
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.group_norm(x, self.groups, self.weight, self.bias, self.eps)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, H, W)]


def get_init_inputs():
    return [GROUPS, CHANNELS, EPS]
