"""Triton grouped-query attention decode step (one query token per sample).

One program per (sample, query head). The program reads its sample's cache length L and walks the
KV head h // GROUP's keys in blocks of 32 slots up to L (slots >= L are masked to -inf), keeping an
online softmax: running max m, running sum l and an accumulator of p v rescaled by exp(m_old - m)
whenever the max grows. Scores q . k and p v are computed in fp32 from the fp16 loads; the output
acc / l is rounded to fp16 once.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gqa_decode_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    len_ptr,
    out_ptr,
    Q_HEADS,
    KV_HEADS,
    CACHE_LEN,
    scale,
    HEAD_DIM: tl.constexpr,
    GROUP: tl.constexpr,
    BLOCK_S: tl.constexpr,
):
    pid = tl.program_id(0)
    b = pid // Q_HEADS
    h = pid % Q_HEADS
    kv_h = h % KV_HEADS
    length = tl.load(len_ptr + b)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + pid * HEAD_DIM + d).to(tl.float32)
    kv_base = (b * KV_HEADS + kv_h) * CACHE_LEN * HEAD_DIM
    m_i = tl.full((), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((), dtype=tl.float32)
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for start in range(0, length, BLOCK_S):
        s = start + tl.arange(0, BLOCK_S)
        smask = s < length
        offs = kv_base + s[:, None] * HEAD_DIM + d[None, :]
        k = tl.load(k_ptr + offs, mask=smask[:, None], other=0.0).to(tl.float32)
        scores = tl.sum(k * q[None, :], axis=1) * scale
        scores = tl.where(smask, scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(scores - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        v = tl.load(v_ptr + offs, mask=smask[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m_i = m_new
    out = acc / l_i
    tl.store(out_ptr + pid * HEAD_DIM + d, out.to(tl.float16))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, lengths):
        q = q.contiguous()
        k_cache = k_cache.contiguous()
        v_cache = v_cache.contiguous()
        B, HQ, D = q.shape
        HKV, S = k_cache.shape[1], k_cache.shape[2]
        out = torch.empty((B, HQ, D), dtype=torch.float16, device=q.device)
        grid = (B * HQ,)
        gqa_decode_kernel[grid](
            q, k_cache, v_cache, lengths, out, HQ, HKV, S, D**-0.5, HEAD_DIM=D, GROUP=HQ // HKV, BLOCK_S=32
        )
        return out
