"""1-D convolution with stride 2, dilation 2 and zero padding 4, with bias, fp16 (fp32 math).

x is (BATCH, C_IN, LENGTH) fp16, weight (C_OUT, C_IN, KSIZE) and bias (C_OUT,) fp16 parameters;
out[b, o, l] = bias[o] + sum_{c, k} weight[o, c, k] x[b, c, l * STRIDE - PADDING + k * DILATION],
positions outside [0, LENGTH) count as 0 (F.conv1d, a cross-correlation). The sum is taken in fp32
and rounded to fp16 once. L_OUT = (LENGTH + 2 PADDING - DILATION (KSIZE - 1) - 1) // STRIDE + 1.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 3
C_IN = 16
C_OUT = 10
LENGTH = 301
KSIZE = 5
STRIDE = 2
PADDING = 4
DILATION = 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        scale = 1.0 / math.sqrt(C_IN * KSIZE)
        self.weight = nn.Parameter((scale * torch.randn(C_OUT, C_IN, KSIZE)).to(torch.float16))
        self.bias = nn.Parameter((0.1 * torch.randn(C_OUT)).to(torch.float16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        acc = torch.promote_types(x.dtype, torch.float32)
        y = F.conv1d(
            x.to(acc),
            self.weight.to(acc),
            self.bias.to(acc),
            stride=STRIDE,
            padding=PADDING,
            dilation=DILATION,
        )
        return y.to(x.dtype)


def get_inputs():
    x = torch.randn(BATCH, C_IN, LENGTH, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return []
