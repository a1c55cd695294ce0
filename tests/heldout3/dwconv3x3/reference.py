"""Depthwise 3x3 convolution with bias, padding 1, stride 1 (groups = channels), fp16.

x is (2, 6, 33, 47) fp16; the conv's weight is (6, 1, 3, 3) and its bias (6,), both fp16. The
output is (2, 6, 33, 47) fp16 (PyTorch's conv is a cross-correlation: no kernel flip).
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=True).to(torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 6, 33, 47, dtype=torch.float16)]


def get_init_inputs():
    return [6]
