"""`F.conv_transpose1d` (a vocoder-style 2x upsampling layer): stride 2, padding 1, kernel 4,
bias.

x (B, C_IN, L) fp16, weight (C_IN, C_OUT, KSIZE) fp16 (the transposed-conv layout), bias (C_OUT,)
fp16. L_out = (L - 1) STRIDE - 2 PADDING + KSIZE = 150. out[b, co, t] = bias[co] +
sum_{ci, k : (t + PADDING - k) = STRIDE s, 0 <= s < L} x[b, ci, s] w[ci, co, k]; fp32 math, fp16 out.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
C_IN = 8
C_OUT = 6
LENGTH = 75
KSIZE = 4
STRIDE = 2
PADDING = 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, weight, bias):
        ct = torch.promote_types(x.dtype, torch.float32)
        out = F.conv_transpose1d(x.to(ct), weight.to(ct), bias.to(ct), stride=STRIDE, padding=PADDING)
        return out.to(x.dtype)


def get_inputs():
    x = torch.randn(BATCH, C_IN, LENGTH)
    weight = 0.3 * torch.randn(C_IN, C_OUT, KSIZE)
    bias = 0.1 * torch.randn(C_OUT)
    return [x.half(), weight.half(), bias.half()]


def get_init_inputs():
    return []
