"""nn.Bilinear forward (bilinear pooling / feature interaction layers):
y[n, k] = sum_{i, j} x1[n, i] W[k, i, j] x2[n, j] + b[k].

x1 (N, IN1) and x2 (N, IN2) fp16; W (OUT, IN1, IN2) and b (OUT,) fp32 parameters made in the
constructor; computed in fp32, out (N, OUT) in x1's dtype.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 100
IN1 = 40
IN2 = 24
OUT = 12


class Model(nn.Module):
    def __init__(self, in1, in2, out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out, in1, in2) / math.sqrt(in1 * in2))
        self.bias = nn.Parameter(0.5 * torch.randn(out))

    def forward(self, x1, x2):
        dt = torch.promote_types(x1.dtype, torch.float32)
        y = F.bilinear(x1.to(dt), x2.to(dt), self.weight.to(dt), self.bias.to(dt))
        return y.to(x1.dtype)


def get_inputs():
    x1 = torch.randn(ROWS, IN1)
    x2 = torch.randn(ROWS, IN2)
    x1[0] = 0.0  # y = b
    x2[1] = 0.0
    x1[2] *= 8.0  # large rows
    x2[3, -1] = 6.0  # the last feature of x2 weighs in
    return [x1.to(torch.float16), x2.to(torch.float16)]


def get_init_inputs():
    return [IN1, IN2, OUT]
