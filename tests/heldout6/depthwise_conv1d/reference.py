"""Depthwise 1-D convolution (groups = channels) with bias and 'same' zero padding.

x is (4, 24, 301) fp32, w is (24, 1, 7) (one 7-tap filter per channel), b is (24,); stride 1,
padding 3, so the output is (4, 24, 301) fp32. As in torch, this is a cross-correlation:
out[n, c, t] = b[c] + sum_k w[c, 0, k] x[n, c, t + k - 3].
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.conv1d(x, w, b, stride=1, padding=3, groups=x.shape[1])


def get_inputs():
    x = torch.randn(4, 24, 301)
    w = torch.randn(24, 1, 7) / 2.0
    b = torch.randn(24)
    return [x, w, b]


def get_init_inputs():
    return []
