"""Group normalization with per-channel affine, as torch.nn.functional.group_norm.

x is (4, 12, 20, 24) fp32 with 4 groups (3 channels, 1440 elements per group), eps = 1e-5,
weight and bias of shape (12,). The activations sit on a large common offset (about 300, spread
about 1), as un-centred features do, so the group variance is small next to the squared mean.
The affine keeps the outputs away from zero (weight about 0.5, bias about 4).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.group_norm(x, 4, weight, bias, eps=1e-5)


def get_inputs():
    x = 300.0 + torch.randn(4, 12, 20, 24)
    weight = 0.5 + 0.1 * torch.randn(12)
    bias = 4.0 + 0.5 * torch.randn(12)
    return [x, weight, bias]


def get_init_inputs():
    return []
