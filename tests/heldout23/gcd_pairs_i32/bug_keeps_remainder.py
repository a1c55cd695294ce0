"""Triton gcd of int32 pairs: (BLOCK_R = 8) x (BLOCK_C = 128) tiles (R = 45: tail 5, C = 300:
tail 44), the inputs read through the strides passed from the host.

Euclid's algorithm on |a|, |b| with a fixed number of steps, MAX_STEPS = 46 (enough for any int32
pair: consecutive Fibonacci numbers are the worst case), every lane stepping (a, b) -> (b, a % b)
while b != 0 and keeping its result once b reaches 0; the divisor of finished lanes is replaced by 1
so that no lane divides by zero. out is int32.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _euclid(a, b, MAX_STEPS: tl.constexpr):
    for _ in range(MAX_STEPS):
        live = b != 0
        r = a % tl.where(live, b, 1)
        a = tl.where(live, r, a)
        b = tl.where(live, r, 0)
    return a


@triton.jit
def gcd_kernel(
    a_ptr,
    b_ptr,
    out_ptr,
    R,
    C,
    sa_r,
    sa_c,
    sb_r,
    sb_c,
    MAX_STEPS: tl.constexpr,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = (rows[:, None] < R) & (cols[None, :] < C)
    a = tl.load(a_ptr + rows[:, None] * sa_r + cols[None, :] * sa_c, mask=m, other=0)
    b = tl.load(b_ptr + rows[:, None] * sb_r + cols[None, :] * sb_c, mask=m, other=0)
    g = _euclid(tl.abs(a), tl.abs(b), MAX_STEPS)
    tl.store(out_ptr + rows[:, None] * C + cols[None, :], g, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        R, C = a.shape
        out = torch.empty((R, C), dtype=torch.int32, device=a.device)
        BLOCK_R, BLOCK_C = 8, 128
        grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
        gcd_kernel[grid](
            a,
            b,
            out,
            R,
            C,
            a.stride(0),
            a.stride(1),
            b.stride(0),
            b.stride(1),
            MAX_STEPS=46,
            BLOCK_R=BLOCK_R,
            BLOCK_C=BLOCK_C,
        )
        return out
