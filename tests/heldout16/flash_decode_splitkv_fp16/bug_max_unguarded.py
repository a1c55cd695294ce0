"""Triton split-KV decode attention (flash-decoding): two kernels.

1. decode_split_kernel, grid (BATCH HEADS, NSPLIT): split sp covers keys [32 sp, 32 sp + 32)
   (MAX_LEN 200: 7 splits, the last of 8 keys); keys j >= lengths[b] are masked to -inf. fp32
   scores, max m (0 when the split has no valid key), p = exp(s - m), l = sum p, the split's
   normalised output o = (p v) / l (0 for an empty split) and lse = m + log l (-inf when empty),
   both kept in fp32 scratch. HEAD_DIM 80 in 128 lanes.
2. decode_combine_kernel, one program per (b, h): M = max lse over the splits (padding split lanes
   -inf), w = exp(lse - M), out = sum w o / sum w, one rounding to fp16.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def decode_split_kernel(
    q_ptr, k_ptr, v_ptr, len_ptr, o_ptr, lse_ptr, H, L, D, NSPLIT, sm_scale, SPLIT: tl.constexpr, BLOCK_D: tl.constexpr
):
    pid_bh = tl.program_id(0)
    sp = tl.program_id(1)
    seq_len = tl.load(len_ptr + pid_bh // H)
    offs_n = sp * SPLIT + tl.arange(0, SPLIT)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    kmask = offs_n < seq_len
    q = tl.load(q_ptr + pid_bh * D + offs_d, mask=d_mask, other=0.0).to(tl.float32)
    kv_off = pid_bh * L * D + offs_n[:, None] * D + offs_d[None, :]
    kv_mask = kmask[:, None] & d_mask[None, :]
    k = tl.load(k_ptr + kv_off, mask=kv_mask, other=0.0).to(tl.float32)
    s = tl.sum(q[None, :] * k, axis=1) * sm_scale
    s = tl.where(kmask, s, float("-inf"))
    m = tl.max(s, axis=0)
    m_safe = tl.where(m > float("-inf"), m, 0.0)
    p = tl.exp(s - m)
    l_sum = tl.sum(p, axis=0)
    v = tl.load(v_ptr + kv_off, mask=kv_mask, other=0.0).to(tl.float32)
    acc = tl.sum(p[:, None] * v, axis=0)
    o = acc / tl.where(l_sum > 0.0, l_sum, 1.0)
    tl.store(o_ptr + (pid_bh * NSPLIT + sp) * D + offs_d, o, mask=d_mask)
    tl.store(lse_ptr + pid_bh * NSPLIT + sp, m_safe + tl.log(l_sum))


@triton.jit
def decode_combine_kernel(o_ptr, lse_ptr, out_ptr, D, NSPLIT, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_bh = tl.program_id(0)
    ss = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_D)
    s_mask = ss < NSPLIT
    d_mask = offs_d < D
    lse = tl.load(lse_ptr + pid_bh * NSPLIT + ss, mask=s_mask, other=float("-inf"))
    M = tl.max(lse, axis=0)
    w = tl.exp(lse - M)
    o_off = (pid_bh * NSPLIT + ss[:, None]) * D + offs_d[None, :]
    o = tl.load(o_ptr + o_off, mask=s_mask[:, None] & d_mask[None, :], other=0.0)
    out = tl.sum(w[:, None] * o, axis=0) / tl.sum(w, axis=0)
    tl.store(out_ptr + pid_bh * D + offs_d, out.to(out_ptr.dtype.element_ty), mask=d_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, lengths):
        q, k, v, lengths = q.contiguous(), k.contiguous(), v.contiguous(), lengths.contiguous()
        B, H, L, D = k.shape
        SPLIT = 32
        NSPLIT = triton.cdiv(L, SPLIT)
        BLOCK_D = triton.next_power_of_2(D)
        o_part = torch.empty((B * H, NSPLIT, D), dtype=torch.float32, device=q.device)
        lse_part = torch.empty((B * H, NSPLIT), dtype=torch.float32, device=q.device)
        out = torch.empty_like(q)
        sm_scale = 1.0 / math.sqrt(D)
        decode_split_kernel[(B * H, NSPLIT)](
            q, k, v, lengths, o_part, lse_part, H, L, D, NSPLIT, sm_scale, SPLIT=SPLIT, BLOCK_D=BLOCK_D
        )
        BLOCK_S = triton.next_power_of_2(NSPLIT)
        decode_combine_kernel[(B * H,)](o_part, lse_part, out, D, NSPLIT, BLOCK_S=BLOCK_S, BLOCK_D=BLOCK_D)
        return out
