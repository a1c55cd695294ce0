"""Triton rotary position embedding (rotate-half form) on a contiguous (B, S, H, D) fp16 tensor.

The tensor is seen as B * S * H rows of D values; row r holds the token at position
(r // H) % S. One program handles BLOCK_R rows and the D / 2 rotation pairs (i, i + D / 2) of
each, padded to BLOCK_H lanes. theta_i = exp(-(i / (D / 2)) ln BASE), the angles, cos, sin and
the rotation are fp32; each output is rounded to fp16 once, at the store.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

BASE = 10000.0


@triton.jit
def rope_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    S,
    H,
    HALF,
    LOG_BASE,
    BLOCK_R: tl.constexpr,
    BLOCK_H: tl.constexpr,
):
    pid = tl.program_id(0)
    rows = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_H)
    mask = (rows < n_rows)[:, None] & (cols < HALF)[None, :]
    pos = ((rows // H) % S).to(tl.float32)
    inv_freq = tl.exp(-(cols.to(tl.float32) / HALF) * LOG_BASE)
    angle = pos[:, None] * inv_freq[None, :]
    c = tl.cos(angle)
    s = tl.sin(angle)
    base = rows[:, None] * (2 * HALF) + cols[None, :]
    x1 = tl.load(x_ptr + base, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF, mask=mask, other=0.0).to(tl.float32)
    o1 = x1 * c - x2 * s
    o2 = x2 * c - x1 * s
    tl.store(out_ptr + base, o1.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + base + HALF, o2.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, S, H, D = x.shape
        half = D // 2
        out = torch.empty_like(x)
        n_rows = B * S * H
        BLOCK_R = 16
        BLOCK_H = triton.next_power_of_2(half)
        grid = (triton.cdiv(n_rows, BLOCK_R),)
        rope_kernel[grid](x, out, n_rows, S, H, half, math.log(BASE), BLOCK_R=BLOCK_R, BLOCK_H=BLOCK_H)
        return out
