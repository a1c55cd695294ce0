"""Triton T5 relative-position bias + causal mask: one program per (16 queries, 32 keys, (b, h))
tile (Q 45: tail 13; K 70: tail 6).

Query row i is position ctx = i + K - Q; n = max(ctx - mem, 0); the bucket is n below
MAX_EXACT = NB // 2, else MAX_EXACT + trunc(log(n / MAX_EXACT) / log(MAX_DISTANCE / MAX_EXACT)
(NB - MAX_EXACT)) clamped to NB - 1 (log of max(n, 1) so the unused branch stays finite).
The bias is gathered from the (NB, H) table at bucket * H + h and added in fp32; keys after the
query get -inf; one rounding to bf16.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def t5_relbias_kernel(
    s_ptr,
    table_ptr,
    out_ptr,
    H,
    Q,
    K,
    NB: tl.constexpr,
    LOG_RATIO: tl.constexpr,
    BLOCK_Q: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid_q = tl.program_id(0)
    pid_k = tl.program_id(1)
    pid_bh = tl.program_id(2)
    h = pid_bh % H
    offs_q = pid_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    tile_mask = (offs_q[:, None] < Q) & (offs_k[None, :] < K)
    ctx = offs_q[:, None]
    mem = offs_k[None, :]
    n = tl.maximum(ctx - mem, 0)
    MAX_EXACT: tl.constexpr = NB // 2
    is_small = n < MAX_EXACT
    ratio = tl.log(tl.maximum(n, 1).to(tl.float32) / MAX_EXACT) / LOG_RATIO
    large = MAX_EXACT + (ratio * (NB - MAX_EXACT)).to(tl.int32)
    large = tl.minimum(large, NB - 1)
    bucket = tl.where(is_small, n, large)
    bias = tl.load(table_ptr + bucket * H + h, mask=tile_mask, other=0.0)
    idx = pid_bh * Q * K + offs_q[:, None] * K + offs_k[None, :]
    s = tl.load(s_ptr + idx, mask=tile_mask, other=0.0).to(tl.float32)
    out = tl.where(mem <= ctx, s + bias, float("-inf"))
    tl.store(out_ptr + idx, out.to(out_ptr.dtype.element_ty), mask=tile_mask)


class ModelNew(nn.Module):
    def __init__(self, max_distance):
        super().__init__()
        self.max_distance = max_distance

    def forward(self, scores, bias_table):
        scores, bias_table = scores.contiguous(), bias_table.contiguous()
        B, H, Q, K = scores.shape
        NB = bias_table.shape[0]
        out = torch.empty_like(scores)
        log_ratio = math.log(self.max_distance / (NB // 2))
        BLOCK_Q, BLOCK_K = 16, 32
        grid = (triton.cdiv(Q, BLOCK_Q), triton.cdiv(K, BLOCK_K), B * H)
        t5_relbias_kernel[grid](
            scores, bias_table, out, H, Q, K, NB=NB, LOG_RATIO=log_ratio, BLOCK_Q=BLOCK_Q, BLOCK_K=BLOCK_K
        )
        return out
