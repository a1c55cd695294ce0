"""Causal flash-attention forward: online softmax over key blocks, exp2 with the scale folded in,
autotuned over block sizes where configs with BLOCK_N > HEAD_DIM fail a tl.static_assert (and
are pruned, as compiled autotune prunes them)."""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

configs = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
           for bm in [16, 32] for bn in [16, 32, 64] for s in [2] for w in [4]]


@triton.autotune(configs, key=["N_CTX", "HEAD_DIM"])
@triton.jit
def _attn_fwd(Q, K, V, Out, sm_scale, stride_qz, stride_qh, stride_qm, stride_qk, H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=offs_m[:, None] < N_CTX)

    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0  # the first alpha is 0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    for start_n in range(0, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * stride_qm + offs_d[:, None] * stride_qk, mask=cols[None, :] < N_CTX)
        qk = tl.dot(q, k)
        causal = (offs_m[:, None] >= cols[None, :]) & (cols[None, :] < N_CTX)
        qk = tl.where(causal, qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk -= m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + cols[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=cols[:, None] < N_CTX)
        acc = tl.dot(p.to(v.dtype), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, acc.to(Out.type.element_ty),
             mask=offs_m[:, None] < N_CTX)


def attention(q, k, v):
    Z, H, N_CTX, HEAD_DIM = q.shape
    o = torch.empty_like(q)
    grid = lambda meta: (triton.cdiv(N_CTX, meta["BLOCK_M"]), Z * H)  # noqa: E731
    _attn_fwd[grid](q, k, v, o, 1.0 / math.sqrt(HEAD_DIM), q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                    H, N_CTX, HEAD_DIM=HEAD_DIM)
    return o


class ModelNew(nn.Module):
    def forward(self, q, k, v):
        return attention(q.contiguous(), k.contiguous(), v.contiguous())
