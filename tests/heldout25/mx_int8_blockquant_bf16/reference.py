"""MX-style block quantisation of bf16 activations to int8 with a shared power-of-two scale (OCP
MXINT8-like, before a low-precision matmul): every row is cut into blocks of 32 values (the last
block of a row partial), e = floor(log2(max |x|)) of the block (-127 for an all-zero block),
q = clamp(floor(x / 2^(e - 6) + 0.5), -127, 127) (0 in an all-zero block). x (R, C) bf16 is the
first C columns of a wider buffer (a strided view); outputs q (R, C) int8 and e (R, ceil(C / 32)) int8.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 48
COLS = 300


class Model(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, x):
        R, C = x.shape
        nb = (C + self.block - 1) // self.block
        ft = torch.promote_types(x.dtype, torch.float32)
        xp = F.pad(x.to(ft), (0, nb * self.block - C)).view(R, nb, self.block)
        amax = xp.abs().amax(-1)
        e = torch.where(amax > 0, torch.frexp(amax).exponent - 1, torch.full_like(amax, -127, dtype=torch.int32))
        scale = torch.exp2((e - 6).to(ft))[..., None]
        q = torch.clamp(torch.floor(xp / scale + 0.5), -127, 127)
        q = torch.where(amax[..., None] > 0, q, torch.zeros_like(q))
        return q.reshape(R, nb * self.block)[:, :C].to(torch.int8), e.to(torch.int8)


def get_inputs():
    buf = torch.randn(ROWS, COLS + 20)
    scales = torch.logspace(-3, 3, ROWS)[:, None]
    buf = buf * scales
    buf[0, :] = 0.0  # all-zero blocks: e = -127, q = 0
    buf[1, :40] = 1e-30  # tiny blocks: large negative exponents
    buf[2, :] = 1e30  # huge blocks
    buf[3, :] = torch.linspace(-8.0, 8.0, COLS + 20)  # exact powers of two and half-way points
    buf[4, 5] = -100.0  # a block whose largest magnitude is negative
    buf[4, 33] = -1.9921875  # the largest bf16 mantissa, negative
    buf[5, COLS - 1] = 500.0  # an outlier in the partial last block
    buf[6, :32] = 0.0
    buf[6, 6] = 3.0  # a lone value: x / scale = 96
    return [buf.to(torch.bfloat16)[:, :COLS]]


def get_init_inputs():
    return [32]
