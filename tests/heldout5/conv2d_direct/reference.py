"""2-D convolution (cross-correlation) with bias, 3 x 3 kernel, stride 1, zero padding 1.

x is (2, 3, 20, 22) fp32, weight (8, 3, 3, 3) fp32 in PyTorch's (out, in, kh, kw) layout, bias (8,)
fp32; the output is (2, 8, 20, 22) fp32, as torch.nn.functional.conv2d(x, weight, bias, padding=1).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, weight, bias, stride=1, padding=1)


def get_inputs():
    return [torch.randn(2, 3, 20, 22), torch.randn(8, 3, 3, 3) * 0.3, torch.randn(8)]


def get_init_inputs():
    return []
