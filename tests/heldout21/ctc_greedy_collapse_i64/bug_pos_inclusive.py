"""Triton CTC greedy collapse: one program per row, the whole row in one block (T = 400 in 512 lanes); the
previous frame is a second, shifted load (-1 before the first frame), the output slot of a kept frame is the
exclusive prefix count of kept frames (`tl.cumsum` - 1), and the slots from the row's count on get -1 (two
disjoint stores: no ordering between them is needed).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ctc_collapse_kernel(ids_ptr, tok_ptr, len_ptr, T, BLANK: tl.constexpr, BLOCK_T: tl.constexpr):
    row = tl.program_id(0)
    t = tl.arange(0, BLOCK_T)
    m = t < T
    cur = tl.load(ids_ptr + row * T + t, mask=m, other=BLANK)
    prev = tl.load(ids_ptr + row * T + t - 1, mask=m & (t > 0), other=-1)
    keep = (cur != prev) & (cur != BLANK) & m
    pos = tl.cumsum(keep.to(tl.int32), axis=0)
    count = tl.sum(keep.to(tl.int32), axis=0)
    tl.store(tok_ptr + row * T + pos, cur, mask=keep)
    tl.store(tok_ptr + row * T + t, tl.full([BLOCK_T], -1, tl.int64), mask=m & (t >= count))
    tl.store(len_ptr + row, count.to(tl.int64))


class ModelNew(nn.Module):
    BLANK = 0

    def __init__(self):
        super().__init__()

    def forward(self, ids):
        ids = ids.contiguous()
        B, T = ids.shape
        tokens = torch.empty((B, T), dtype=torch.int64, device=ids.device)
        lengths = torch.empty(B, dtype=torch.int64, device=ids.device)
        BLOCK_T = triton.next_power_of_2(T)
        ctc_collapse_kernel[(B,)](ids, tokens, lengths, T, BLANK=self.BLANK, BLOCK_T=BLOCK_T)
        return tokens, lengths
