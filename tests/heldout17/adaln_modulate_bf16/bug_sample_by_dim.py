"""Triton adaLN modulation: one program per token row (B T = 111 rows), the whole row of
D = 200 in one 256-lane block (tail 56).

fp32 statistics from the bf16 loads: mean over the D real lanes, centred values zeroed on the
padding lanes, biased variance over D, rstd = 1 / sqrt(var + EPS) (EPS keeps the all-zero padding
tokens finite: they come out as shift). The row's sample is b = row // T, whose scale and shift
rows modulate y (1 + scale) + shift; one rounding to bf16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def adaln_modulate_kernel(x_ptr, shift_ptr, scale_ptr, out_ptr, T, D, EPS: tl.constexpr, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    b = row // D
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / D
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / D
    rstd = 1.0 / tl.sqrt(var + EPS)
    sh = tl.load(shift_ptr + b * D + cols, mask=mask, other=0.0).to(tl.float32)
    sc = tl.load(scale_ptr + b * D + cols, mask=mask, other=0.0).to(tl.float32)
    y = diff * rstd
    out = y * (1.0 + sc) + sh
    tl.store(out_ptr + row * D + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, shift, scale):
        x, shift, scale = x.contiguous(), shift.contiguous(), scale.contiguous()
        B, T, D = x.shape
        out = torch.empty_like(x)
        BLOCK_D = triton.next_power_of_2(D)
        adaln_modulate_kernel[(B * T,)](x, shift, scale, out, T, D, EPS=EPS, BLOCK_D=BLOCK_D)
        return out
