"""Triton pairwise Hamming distances of packed int32 codes, int64 out.

Tiles of 32 queries x 32 items (200 = 6 x 32 + 8, 150 = 4 x 32 + 22), a loop over the words.
popcount(a ^ b) is the SWAR bit count on int32: pair counts v - ((v >> 1) & 0x55555555), nibble
counts (v & 0x33333333) + ((v >> 2) & 0x33333333), byte counts (v + (v >> 4)) & 0x0F0F0F0F, then
the four bytes folded into the low byte and masked with 0x3F (at most 32). Every shifted term is
masked before it is used, so the arithmetic (sign-filling) right shift of a negative word does not
matter. The int32 per-tile counts are stored as int64.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hamming_kernel(a_ptr, b_ptr, out_ptr, Q, M, NW, stride_a, stride_b, BLOCK_Q: tl.constexpr, BLOCK_M: tl.constexpr):
    pid_q = tl.program_id(0)
    pid_m = tl.program_id(1)
    q = pid_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    qmask = q < Q
    mmask = m < M
    acc = tl.zeros((BLOCK_Q, BLOCK_M), tl.int32)
    for w in range(0, NW):
        av = tl.load(a_ptr + q * stride_a + w, mask=qmask, other=0)
        bv = tl.load(b_ptr + m + w * stride_b, mask=mmask, other=0)
        v = av[:, None] ^ bv[None, :]
        v = v - ((v >> 1) & 0x55555555)
        v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
        v = (v + (v >> 4)) & 0x0F0F0F0F
        v = v + (v >> 8)
        v = v + (v >> 16)
        acc += v & 0x3F
    omask = qmask[:, None] & mmask[None, :]
    tl.store(out_ptr + q[:, None] * M + m[None, :], acc.to(tl.int64), mask=omask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        Q, NW = a.shape
        M = b.shape[0]
        out = torch.empty((Q, M), dtype=torch.int64, device=a.device)
        BLOCK_Q, BLOCK_M = 32, 32
        grid = (triton.cdiv(Q, BLOCK_Q), triton.cdiv(M, BLOCK_M))
        hamming_kernel[grid](a, b, out, Q, M, NW, a.stride(0), b.stride(0), BLOCK_Q=BLOCK_Q, BLOCK_M=BLOCK_M)
        return out
