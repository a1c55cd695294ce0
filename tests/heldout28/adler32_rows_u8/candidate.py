"""Triton Adler-32 of every row. One program per BLOCK_R = 8 rows (R 70: tail 6), looping over the bytes in chunks
of BLOCK = 256 (L 1500: tail 220); the bytes loaded through the row stride passed from the host (a window of a
record buffer) with lanes j >= L masked; a = 1 + sum d and b = L + sum d (L - j) (the sum of the running a values)
in int32 lanes (exact while 255 L^2 / 2 < 2^31), reduced once, both modulo 65521, then b widened to int64 before
the packing (b << 16) | a into one int64 output.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def adler32_kernel(d_ptr, out_ptr, R, L, s_row, BLOCK_R: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rm = r < R
    sa = tl.zeros((BLOCK_R, BLOCK), dtype=tl.int32)
    sb = tl.zeros((BLOCK_R, BLOCK), dtype=tl.int32)
    for j0 in range(0, L, BLOCK):
        j = j0 + tl.arange(0, BLOCK)
        m = rm[:, None] & (j < L)[None, :]
        d = tl.load(d_ptr + r[:, None] * s_row + j[None, :], mask=m, other=0).to(tl.int32)
        sa += d
        sb += d * (L - j)[None, :]
    a = (1 + tl.sum(sa, axis=1)) % 65521
    b = (L + tl.sum(sb, axis=1)) % 65521
    tl.store(out_ptr + r, (b.to(tl.int64) << 16) | a, mask=rm)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, data):
        R, L = data.shape
        out = torch.empty(R, dtype=torch.int64, device=data.device)
        BLOCK_R = 8
        adler32_kernel[(triton.cdiv(R, BLOCK_R),)](
            data,
            out,
            R,
            L,
            data.stride(0),
            BLOCK_R=BLOCK_R,
            BLOCK=256,
        )
        return out
