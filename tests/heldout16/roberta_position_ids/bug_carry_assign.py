"""Triton RoBERTa position ids: one program per row, a chunked inclusive scan with a carry.

Chunks of 128 tokens (SEQ 300: tail 44, padding lanes load PAD). tok = (id != PAD) as int32;
c = cumsum(tok) + carry (non-pad tokens before the chunk); position = c + PAST + PAD for tokens,
PAD for pad ids; the carry grows by the chunk's token count. int64 out.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

PAD = 1
PAST = 3


@triton.jit
def position_ids_kernel(ids_ptr, out_ptr, S, PAD: tl.constexpr, PAST: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = tl.zeros([], dtype=tl.int32)
    for s0 in range(0, S, BLOCK):
        offs = s0 + tl.arange(0, BLOCK)
        inb = offs < S
        ids = tl.load(ids_ptr + row * S + offs, mask=inb, other=PAD)
        tok = (ids != PAD).to(tl.int32)
        c = tl.cumsum(tok, axis=0) + carry
        pos = tl.where(tok != 0, c + PAST, 0) + PAD
        tl.store(out_ptr + row * S + offs, pos.to(tl.int64), mask=inb)
        carry = tl.sum(tok, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ids = ids.contiguous()
        B, S = ids.shape
        out = torch.empty_like(ids)
        position_ids_kernel[(B,)](ids, out, S, PAD=PAD, PAST=PAST, BLOCK=128)
        return out
