"""Triton logit soft-capping, CAP * tanh(s / CAP), with an offset causal mask, on (B, H, Q, K) fp32.

One program per (batch * head, query tile, key tile). Query i may see keys j <= i + (K - Q).
tanh(v) = -m / (2 + m) with m = expm1(-2 |v|) and the sign of v restored: no exp of a positive
argument, so nothing overflows. There is no expm1 in triton.language: for -0.5 < a <= 0,
expm1(a) = (u - 1) a / log(u) with u = exp(a) (a itself where u rounds to 1), which keeps the
relative accuracy for small |v|; below -0.5, u - 1 has no cancellation.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

CAP = 30.0


@triton.jit
def softcap_mask_kernel(
    s_ptr,
    out_ptr,
    Q,
    K,
    CAP: tl.constexpr,
    BLOCK_Q: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    bh = tl.program_id(0)
    pid_q = tl.program_id(1)
    pid_k = tl.program_id(2)
    i = pid_q * BLOCK_Q + tl.arange(0, BLOCK_Q)
    j = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    mask = (i < Q)[:, None] & (j < K)[None, :]
    offs = bh * Q * K + i[:, None] * K + j[None, :]
    s = tl.load(s_ptr + offs, mask=mask, other=0.0)
    v = s / CAP
    a = -2.0 * tl.abs(v)
    u = tl.exp(a)
    em = tl.where(a > -0.5, tl.where(u == 1.0, a, (u - 1.0) * a / tl.log(u)), u - 1.0)
    th = -em / (2.0 + em)
    th = tl.where(v < 0, -th, th)
    y = CAP * th
    allowed = j[None, :] <= i[:, None]
    y = tl.where(allowed, y, float("-inf"))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        scores = scores.contiguous()
        B, H, Q, K = scores.shape
        out = torch.empty_like(scores)
        BLOCK_Q, BLOCK_K = 16, 16
        grid = (B * H, triton.cdiv(Q, BLOCK_Q), triton.cdiv(K, BLOCK_K))
        softcap_mask_kernel[grid](scores, out, Q, K, CAP=CAP, BLOCK_Q=BLOCK_Q, BLOCK_K=BLOCK_K)
        return out
