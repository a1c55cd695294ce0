"""Triton repetition penalty: copy the logits, then penalise each row's history tokens in place.

1. copy_kernel: out = logits, flat blocks of 1024 (B V = 8000: tail 832).
2. penalty_kernel: one program per row, a loop over the row's L = 50 ids in chunks of 16 (tail 2).
   Each id's score is read from the input logits (never from out, so a token repeated across
   chunks is penalised once), penalised (x * p if x < 0 else x / p) and written to out[row, id];
   repeated ids write the same value.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


@triton.jit
def penalty_kernel(logits_ptr, ids_ptr, out_ptr, V, L, penalty, BLOCK_L: tl.constexpr):
    row = tl.program_id(0)
    for l0 in range(0, L, BLOCK_L):
        j = l0 + tl.arange(0, BLOCK_L)
        jmask = j < L
        tok = tl.load(ids_ptr + row * L + j, mask=jmask, other=0)
        x = tl.load(logits_ptr + row * V + tok, mask=jmask, other=0.0)
        y = tl.where(x < 0, x * penalty, x / penalty)
        tl.store(out_ptr + row * V + tok, y, mask=jmask)


class ModelNew(nn.Module):
    def __init__(self, penalty: float):
        super().__init__()
        self.penalty = penalty

    def forward(self, logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        logits, ids = logits.contiguous(), ids.contiguous()
        B, V = logits.shape
        L = ids.shape[1]
        out = torch.empty_like(logits)
        n = logits.numel()
        BLOCK = 1024
        copy_kernel[(n // BLOCK,)](logits, out, n, BLOCK=BLOCK)
        penalty_kernel[(B,)](logits, ids, out, V, L, self.penalty, BLOCK_L=16)
        return out
