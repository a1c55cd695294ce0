"""Triton VARCHAR comparison. One program per BLOCK_R = 16 strings (R 300: tail 12) walks the bytes in chunks of
BLOCK_L = 64 (L 200: tail 8): bytes at positions below min(la, lb) loaded through the row strides passed from the
host (b is a column slice of a wider buffer), the first differing position kept as a running minimum (L where
none); then the common prefix length min(first, n), and the sign of the first differing bytes (loaded as uint8,
compared in int32) or, when the shorter string is a prefix of the other, of la - lb.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def strcmp_kernel(
    a_ptr, b_ptr, la_ptr, lb_ptr, cmp_ptr, lcp_ptr, R, L, sa_r, sb_r, BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rmask = rows < R
    la = tl.load(la_ptr + rows, mask=rmask, other=0)
    lb = tl.load(lb_ptr + rows, mask=rmask, other=0)
    n = tl.minimum(la, lb)
    first = tl.zeros([BLOCK_R], dtype=tl.int64) + L
    for start in range(0, L, BLOCK_L):
        cols = start + tl.arange(0, BLOCK_L)
        m = rmask[:, None] & (cols[None, :] < n[:, None])
        ca = tl.load(a_ptr + rows[:, None] * sa_r + cols[None, :], mask=m, other=0)
        cb = tl.load(b_ptr + rows[:, None] * sb_r + cols[None, :], mask=m, other=0)
        hit = tl.where(m & (ca != cb), cols[None, :], L)
        first = tl.minimum(first, tl.min(hit, axis=1))
    has = first < n
    lcp = tl.minimum(first, n)
    fa = tl.load(a_ptr + rows * sa_r + first, mask=rmask & has, other=0).to(tl.int32)
    fb = tl.load(b_ptr + rows * sb_r + first, mask=rmask & has, other=0).to(tl.int32)
    by_byte = (fa > fb).to(tl.int32) - (fa < fb).to(tl.int32)
    by_len = (la > lb).to(tl.int32) - (la < lb).to(tl.int32)
    tl.store(cmp_ptr + rows, tl.where(has, by_byte, by_len), mask=rmask)
    tl.store(lcp_ptr + rows, lcp, mask=rmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, la, lb):
        R, L = a.shape
        cmp = torch.empty(R, dtype=torch.int32, device=a.device)
        lcp = torch.empty(R, dtype=torch.int64, device=a.device)
        BLOCK_R = 16
        grid = (triton.cdiv(R, BLOCK_R),)
        strcmp_kernel[grid](a, b, la, lb, cmp, lcp, R, L, a.stride(0), b.stride(0), BLOCK_R=BLOCK_R, BLOCK_L=64)
        return cmp, lcp
