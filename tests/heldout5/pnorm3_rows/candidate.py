"""Triton row-wise 3-norm, one program per BR-row tile.

Each program walks its rows in BLOCK-wide chunks, converts the fp16 values to fp32, accumulates
|x|^3 in an fp32 tile (row and column tails masked), reduces it and takes the cube root as
exp(log(s) / 3) (zero rows give 0; NaN and Inf sums propagate), storing fp16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pnorm3_kernel(
    x_ptr,
    out_ptr,
    R,
    D,
    stride_x,
    BR: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = pid * BR + tl.arange(0, BR)
    rmask = rows < R
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BR, BLOCK), dtype=tl.float32)
    for k0 in range(0, D, BLOCK):
        cols = k0 + offs
        m = rmask[:, None] & (cols < D)[None, :]
        v = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :], mask=m, other=0.0).to(tl.float32)
        a = tl.abs(v)
        acc += a * a * a
    s = tl.sum(acc, axis=1)
    norm = tl.where(s == 0.0, 0.0, tl.exp(tl.log(s) / 3.0))
    tl.store(out_ptr + rows, norm.to(out_ptr.dtype.element_ty), mask=rmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        R, D = x.shape
        out = torch.empty((R,), device=x.device, dtype=x.dtype)
        BR = 8
        grid = (triton.cdiv(R, BR),)
        pnorm3_kernel[grid](x, out, R, D, x.stride(0), BR=BR, BLOCK=256)
        return out
