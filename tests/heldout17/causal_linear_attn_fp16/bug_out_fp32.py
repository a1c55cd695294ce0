"""Triton causal linear attention: one program per (b, h), a sequential loop over the T = 50
steps with the (D x D) state S and the normaliser z in fp32 registers (D 24 in 32 lanes).

Each step loads q_t, k_t, v_t (rows of D at t D in the (b, h) plane), phi(x) = x + 1 for x > 0
else exp(x), with phi forced to 0 on the padding lanes (phi(0) would be 1); S += phi(k) v^T,
z += phi(k), then out_t = (phi(q) S) / (phi(q) . z + EPS), one rounding to fp16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def causal_linear_attn_kernel(q_ptr, k_ptr, v_ptr, out_ptr, T, D, EPS: tl.constexpr, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    base = pid * T * D
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < D
    S = tl.zeros([BLOCK_D, BLOCK_D], dtype=tl.float32)
    z = tl.zeros([BLOCK_D], dtype=tl.float32)
    for t in range(T):
        row = base + t * D + offs_d
        q = tl.load(q_ptr + row, mask=dmask, other=0.0).to(tl.float32)
        k = tl.load(k_ptr + row, mask=dmask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + row, mask=dmask, other=0.0).to(tl.float32)
        phi_q = tl.where(dmask, tl.where(q > 0, q + 1.0, tl.exp(q)), 0.0)
        phi_k = tl.where(dmask, tl.where(k > 0, k + 1.0, tl.exp(k)), 0.0)
        S += phi_k[:, None] * v[None, :]
        z += phi_k
        num = tl.sum(phi_q[:, None] * S, axis=0)
        den = tl.sum(phi_q * z, axis=0) + EPS
        tl.store(out_ptr + row, (num / den).to(out_ptr.dtype.element_ty), mask=dmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        B, H, T, D = q.shape
        out = torch.empty_like(q, dtype=torch.float32)
        BLOCK_D = triton.next_power_of_2(D)
        causal_linear_attn_kernel[(B * H,)](q, k, v, out, T, D, EPS=EPS, BLOCK_D=BLOCK_D)
        return out
