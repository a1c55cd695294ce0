"""Triton RWKV-4 WKV forward: one program per (sample, 32-channel block) (C = 72: tail 8),
a sequential loop over the T time steps with the (aa, bb, pp) state in fp32 registers.

Each step: the current token's exponent u + k_t is compared with the running maximum pp, both
terms are shifted by the larger one before exp (the keys reach 96, exp of which overflows fp32),
y_t = (e1 aa + e2 v_t) / (e1 bb + e2) is written in fp16; then the state is decayed by
w = -exp(time_decay) and the token k_t is folded in, again shifted by the new maximum.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def wkv_forward_kernel(k_ptr, v_ptr, td_ptr, tf_ptr, y_ptr, T, C, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cb = tl.program_id(1)
    cols = cb * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = cols < C
    w = -tl.exp(tl.load(td_ptr + cols, mask=mask, other=0.0).to(tl.float32))
    u = tl.load(tf_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    aa = tl.zeros([BLOCK_C], dtype=tl.float32)
    bb = tl.zeros([BLOCK_C], dtype=tl.float32)
    pp = tl.full([BLOCK_C], -1e38, dtype=tl.float32)
    base = b * T * C
    for t in range(T):
        offs = base + t * C + cols
        kk = tl.load(k_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        vv = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        ww = u + vv
        p = tl.maximum(pp, ww)
        e1 = tl.exp(pp - p)
        e2 = tl.exp(ww - p)
        y = (e1 * aa + e2 * vv) / (e1 * bb + e2)
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
        ww = w + pp
        p = tl.maximum(ww, kk)
        e1 = tl.exp(ww - p)
        e2 = tl.exp(kk - p)
        aa = e1 * aa + e2 * vv
        bb = e1 * bb + e2
        pp = p


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.time_decay = nn.Parameter(0.5 * torch.randn(channels, generator=g) - 1.0)
        self.time_first = nn.Parameter(0.5 * torch.randn(channels, generator=g) + 0.3)

    def forward(self, k, v):
        k, v = k.contiguous(), v.contiguous()
        B, T, C = k.shape
        y = torch.empty_like(k)
        BLOCK_C = 32
        grid = (B, triton.cdiv(C, BLOCK_C))
        wkv_forward_kernel[grid](k, v, self.time_decay, self.time_first, y, T, C, BLOCK_C=BLOCK_C)
        return y
