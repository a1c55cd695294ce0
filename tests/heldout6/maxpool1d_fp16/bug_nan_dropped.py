"""Triton 1-D max pooling (kernel 5, stride 2, padding 2), one program per (row, output block).

Rows are the flattened (batch, channel) pairs of a contiguous (N, C, L) input. Each program owns
BLOCK outputs of one row; output o looks at input positions 2 o - 2 .. 2 o + 2, positions outside
[0, L) are skipped (loaded as -inf, so they never win). The running max keeps a NaN once it has
seen one, as PyTorch does. Values are compared in their own dtype (max is exact).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def maxpool1d_kernel(
    x_ptr,
    out_ptr,
    L,
    L_out,
    KSIZE: tl.constexpr,
    STRIDE: tl.constexpr,
    PAD: tl.constexpr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    pid = tl.program_id(1)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    omask = o < L_out
    start = o * STRIDE - PAD
    x_row = x_ptr + row * L
    acc = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for k in tl.static_range(KSIZE):
        pos = start + k
        m = omask & (pos >= 0) & (pos < L)
        v = tl.load(x_row + pos, mask=m, other=float("-inf")).to(tl.float32)
        acc = tl.maximum(acc, v)
    tl.store(out_ptr + row * L_out + o, acc.to(out_ptr.dtype.element_ty), mask=omask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, L = x.shape
        KSIZE, STRIDE, PAD = 5, 2, 2
        L_out = (L + 2 * PAD - KSIZE) // STRIDE + 1
        out = torch.empty((N, C, L_out), device=x.device, dtype=x.dtype)
        BLOCK = 64
        grid = (N * C, triton.cdiv(L_out, BLOCK))
        maxpool1d_kernel[grid](x, out, L, L_out, KSIZE=KSIZE, STRIDE=STRIDE, PAD=PAD, BLOCK=BLOCK)
        return out
