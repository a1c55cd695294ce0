"""Triton gated linear unit over the last dimension (F.glu(x, dim=-1)) for bf16 rows.

A 2-D grid of (BR rows) x (BH half-columns) tiles: each program loads the value half a = x[:, j]
and the gate half g = x[:, H + j], computes a * sigmoid(g) in fp32 and stores bf16, masking both
the row tail and the half-width tail (H = 257).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def glu_kernel(x_ptr, out_ptr, R, H, BR: tl.constexpr, BH: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_h = tl.program_id(1)
    rows = pid_r * BR + tl.arange(0, BR)
    cols = pid_h * BH + tl.arange(0, BH)
    m = (rows < R)[:, None] & (cols < H)[None, :]
    x_off = rows[:, None] * H + cols[None, :]
    a = tl.load(x_ptr + x_off, mask=m, other=0.0).to(tl.float32)
    g = tl.load(x_ptr + x_off + H, mask=m, other=0.0).to(tl.float32)
    y = a * (1.0 / (1.0 + tl.exp(-g)))
    tl.store(out_ptr + rows[:, None] * H + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        R, D = x.shape
        H = D // 2
        out = torch.empty((R, H), device=x.device, dtype=x.dtype)
        BR, BH = 16, 64
        grid = (triton.cdiv(R, BR), triton.cdiv(H, BH))
        glu_kernel[grid](x, out, R, H, BR=BR, BH=BH)
        return out
