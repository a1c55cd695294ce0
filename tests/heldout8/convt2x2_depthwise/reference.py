"""Depthwise transposed convolution, kernel 2x2, stride 2 (a learned 2x nearest-style upsample).

x is (2, 6, 25, 37) fp32, weight is (6, 1, 2, 2), bias is (6,):
out = F.conv_transpose2d(x, weight, bias, stride=2, groups=6), shape (2, 6, 50, 74);
out[b, c, 2 i + p, 2 j + q] = x[b, c, i, j] * weight[c, 0, p, q] + bias[c].
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 6
HEIGHT = 25
WIDTH = 37


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.conv_transpose2d(x, weight, bias, stride=2, groups=x.shape[1])


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)
    weight = torch.randn(CHANNELS, 1, 2, 2)
    bias = torch.randn(CHANNELS)
    return [x, weight, bias]


def get_init_inputs():
    return []
