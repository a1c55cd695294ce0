"""Triton 1-D Wasserstein distance of histogram rows: one program per BLOCK_R = 8 rows (R = 50:
tail 2), two loops over the bins in chunks of BLOCK_K = 128 (K = 500: tail 116), the row strides
passed from the host.

Loop 1 sums p and q (bf16 widened to fp32, padding 0) into (rows x bins) fp32 lane accumulators,
reduced once to the row masses. Loop 2 forms d = p / mass_p - q / mass_q per bin, the chunk's
inclusive `tl.cumsum` plus a per-row running total (the CDF difference), and sums |CDF| over the
real bins into an fp32 lane accumulator reduced at the end.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def emd_kernel(p_ptr, q_ptr, out_ptr, R, K, stride_p, stride_q, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rm = rows < R
    cols = tl.arange(0, BLOCK_K)
    acc_p = tl.zeros([BLOCK_R, BLOCK_K], dtype=tl.float32)
    acc_q = tl.zeros([BLOCK_R, BLOCK_K], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        m = rm[:, None] & (k0 + cols[None, :] < K)
        acc_p += tl.load(p_ptr + rows[:, None] * stride_p + k0 + cols[None, :], mask=m, other=0.0).to(tl.float32)
        acc_q += tl.load(q_ptr + rows[:, None] * stride_q + k0 + cols[None, :], mask=m, other=0.0).to(tl.float32)
    inv_p = 1.0 / tl.sum(acc_p, axis=1)
    inv_q = 1.0 / tl.sum(acc_q, axis=1)
    carry = tl.zeros([BLOCK_R], dtype=tl.float32)
    dist = tl.zeros([BLOCK_R, BLOCK_K], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        m = rm[:, None] & (k0 + cols[None, :] < K)
        p = tl.load(p_ptr + rows[:, None] * stride_p + k0 + cols[None, :], mask=m, other=0.0).to(tl.float32)
        q = tl.load(q_ptr + rows[:, None] * stride_q + k0 + cols[None, :], mask=m, other=0.0).to(tl.float32)
        d = p * inv_p[:, None] - q * inv_q[:, None]
        c = tl.cumsum(d, axis=1) + carry[:, None]
        dist += tl.where(m, tl.abs(c), 0.0)
        carry = tl.sum(d, axis=1)
    tl.store(out_ptr + rows, tl.sum(dist, axis=1), mask=rm)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p, q):
        R, K = p.shape
        out = torch.empty(R, dtype=torch.float32, device=p.device)
        BLOCK_R, BLOCK_K = 8, 128
        grid = (triton.cdiv(R, BLOCK_R),)
        emd_kernel[grid](p, q, out, R, K, p.stride(0), q.stride(0), BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K)
        return out
