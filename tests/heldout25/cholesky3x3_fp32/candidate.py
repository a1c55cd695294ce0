"""Triton 3 x 3 Cholesky: one matrix per lane, BLOCK = 128 matrices per program (N 1000: tail 104).
The six lower-triangle entries are loaded through the matrix / row / column strides passed from the
host (the input is the 3 x 3 block of 4 x 4 matrices; the upper triangle is never read), the factor is
formed in closed form (l00 = sqrt(a00), l10 = a10 / l00, l20 = a20 / l00, l11 = sqrt(a11 - l10^2),
l21 = (a21 - l20 l10) / l11, l22 = sqrt(a22 - l20^2 - l21^2)), and all nine entries of the row-major
output are stored, zeros above the diagonal.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chol3_kernel(a_ptr, l_ptr, N, sa_n, sa_r, sa_c, so_n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < N
    a = a_ptr + i * sa_n
    a00 = tl.load(a, mask=m, other=1.0)
    a10 = tl.load(a + sa_r, mask=m, other=0.0)
    a11 = tl.load(a + sa_r + sa_c, mask=m, other=1.0)
    a20 = tl.load(a + 2 * sa_r, mask=m, other=0.0)
    a21 = tl.load(a + 2 * sa_r + sa_c, mask=m, other=0.0)
    a22 = tl.load(a + 2 * sa_r + 2 * sa_c, mask=m, other=1.0)
    l00 = tl.sqrt(a00)
    l10 = a10 / l00
    l20 = a20 / l00
    l11 = tl.sqrt(a11 - l10 * l10)
    l21 = (a21 - l20 * l10) / l11
    l22 = tl.sqrt(a22 - l20 * l20 - l21 * l21)
    zero = tl.zeros([BLOCK], dtype=tl.float32)
    o = l_ptr + i * so_n
    tl.store(o, l00, mask=m)
    tl.store(o + 1, zero, mask=m)
    tl.store(o + 2, zero, mask=m)
    tl.store(o + 3, l10, mask=m)
    tl.store(o + 4, l11, mask=m)
    tl.store(o + 5, zero, mask=m)
    tl.store(o + 6, l20, mask=m)
    tl.store(o + 7, l21, mask=m)
    tl.store(o + 8, l22, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a):
        N = a.shape[0]
        out = torch.empty(N, 3, 3, dtype=torch.float32, device=a.device)
        BLOCK = 128
        grid = (triton.cdiv(N, BLOCK),)
        chol3_kernel[grid](a, out, N, a.stride(0), a.stride(1), a.stride(2), out.stride(0), BLOCK=BLOCK)
        return out
