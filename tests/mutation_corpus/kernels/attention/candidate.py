"""Flash-style attention forward: one program per block of queries, online softmax over key blocks.

The running max m_i and sum l_i rescale the accumulator whenever a later key block raises the max;
masked keys get -inf scores, so they contribute exp(-inf) = 0.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def attention_kernel(Q, K, V, Out, seq_q, seq_k, sm_scale,
                     stride_qm, stride_qd, stride_kn, stride_kd, stride_vn, stride_vd, stride_om, stride_od,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=offs_m[:, None] < seq_q, other=0.0)

    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, seq_k, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(K + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                    mask=offs_n[:, None] < seq_k, other=0.0)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
        qk = tl.where(offs_n[None, :] < seq_k, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(V + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                    mask=offs_n[:, None] < seq_k, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(Out + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od, acc,
             mask=offs_m[:, None] < seq_q)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        seq_q, head_dim = q.shape
        seq_k = k.shape[0]
        out = torch.empty_like(q)
        BLOCK_M, BLOCK_N = 32, 32
        grid = (triton.cdiv(seq_q, BLOCK_M),)
        attention_kernel[grid](q, k, v, out, seq_q, seq_k, 1.0 / math.sqrt(head_dim),
                               q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                               v.stride(0), v.stride(1), out.stride(0), out.stride(1),
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=head_dim)
        return out
