"""Triton row-weighted lerp over flattened contiguous (R, N) bf16 tensors.

Each program handles BLOCK consecutive elements; element k belongs to row k // N, whose
weight w[row] is gathered per lane. The interpolation is done in fp32 with torch's two-sided
formula (a + w (b - a) for |w| < 0.5, b - (b - a) (1 - w) otherwise, exact at both ends and
Inf-preserving) and rounded to bf16 once at the store.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lerp_rows_kernel(
    a_ptr,
    b_ptr,
    w_ptr,
    out_ptr,
    n_elements,
    N,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    row = offs // N
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + row, mask=mask, other=0.0).to(tl.float32)
    d = b - a
    out = tl.where(tl.abs(w) < 0.5, a + w * d, b - d * (1.0 - w))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        w = w.contiguous()
        R, N = a.shape
        out = torch.empty_like(a)
        n = a.numel()
        BLOCK = 1024
        grid = (triton.cdiv(n, BLOCK),)
        lerp_rows_kernel[grid](a, b, w, out, n, N, BLOCK=BLOCK)
        return out
