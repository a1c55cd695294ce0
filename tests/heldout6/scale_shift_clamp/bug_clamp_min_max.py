"""Triton fused per-channel scale + shift + clamp for a contiguous fp16 NCHW tensor.

Flat over all elements in BLOCK chunks; element i belongs to channel (i // (H * W)) % C. The
affine is done in fp32, then clamped to [lo, hi] with comparisons that let NaN through, and the
result is stored as fp16 into a new tensor.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_shift_clamp_kernel(
    x_ptr,
    scale_ptr,
    shift_ptr,
    out_ptr,
    total,
    C,
    HW,
    lo,
    hi,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    c = (offs // HW) % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(scale_ptr + c, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(shift_ptr + c, mask=mask, other=0.0).to(tl.float32)
    y = x * a + b
    y = tl.minimum(tl.maximum(y, lo), hi)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, lo: float, hi: float):
        super().__init__()
        self.lo = lo
        self.hi = hi

    def forward(self, x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, H, W = x.shape
        out = torch.empty_like(x)
        total = x.numel()
        BLOCK = 1024
        grid = (triton.cdiv(total, BLOCK),)
        scale_shift_clamp_kernel[grid](
            x,
            scale.contiguous(),
            shift.contiguous(),
            out,
            total,
            C,
            H * W,
            self.lo,
            self.hi,
            BLOCK=BLOCK,
        )
        return out
