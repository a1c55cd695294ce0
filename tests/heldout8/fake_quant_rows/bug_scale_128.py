"""Triton per-row symmetric int8 fake quantisation, two kernels and a scale workspace.

row_scale_kernel: one program per row, absolute maximum over the row in chunks of BLOCK, and
scale[r] = amax / 127 written to an fp32 (R,) workspace. fake_quant_kernel: one program per
(row, column block); v = x / scale[r] is rounded half to even (floor(v + 0.5), minus one on an
exact tie that landed on an odd integer), clamped to [-127, 127] and multiplied back by the scale.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, scale_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    amax = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        amax = tl.maximum(amax, tl.abs(v))
    tl.store(scale_ptr + row, tl.max(amax, axis=0) / 128.0)


@triton.jit
def fake_quant_kernel(x_ptr, scale_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pid = tl.program_id(1)
    cols = pid * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    s = tl.load(scale_ptr + row)
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    v = x / s
    r = tl.floor(v + 0.5)
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    r = tl.where(((r - v) == 0.5) & odd, r - 1.0, r)
    q = tl.minimum(tl.maximum(r, -127.0), 127.0)
    tl.store(out_ptr + row * N + cols, q * s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        R, N = x.shape
        scale = torch.empty(R, device=x.device, dtype=torch.float32)
        out = torch.empty_like(x)
        row_scale_kernel[(R,)](x, scale, N, BLOCK=256)
        BLOCK = 256
        fake_quant_kernel[(R, triton.cdiv(N, BLOCK))](x, scale, out, N, BLOCK=BLOCK)
        return out
