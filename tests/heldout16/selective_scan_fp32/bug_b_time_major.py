"""Triton selective scan: one program per (sample, 16 channels), a sequential loop over time.

The state h (16 channels x 16 state lanes, NSTATE 12 real) stays in registers, fp32. At each step
t: dt = softplus(delta) (x above 20 taken as is), h = exp(dt A) h + dt B_t u_t, y = sum_n C_t h
+ D u, out = y silu(z). Padding state lanes load A = B = C = 0, so they stay 0 and add nothing;
padding channels (DIM 40 = 2 x 16 + 8) are masked. u, delta, z, out are (B, D, L) contiguous;
B and C are (B, N, L).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def selective_scan_kernel(
    u_ptr, delta_ptr, a_ptr, b_ptr, c_ptr, d_ptr, z_ptr, out_ptr, D, L, N, BLOCK_D: tl.constexpr, BLOCK_N: tl.constexpr
):
    pid_b = tl.program_id(0)
    pid_d = tl.program_id(1)
    ch = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    ns = tl.arange(0, BLOCK_N)
    ch_mask = ch < D
    n_mask = ns < N
    A = tl.load(a_ptr + ch[:, None] * N + ns[None, :], mask=ch_mask[:, None] & n_mask[None, :], other=0.0)
    Dv = tl.load(d_ptr + ch, mask=ch_mask, other=0.0)
    seq = pid_b * D * L + ch * L
    bc = pid_b * N * L + ns * L
    h = tl.zeros([BLOCK_D, BLOCK_N], dtype=tl.float32)
    for t in range(L):
        u = tl.load(u_ptr + seq + t, mask=ch_mask, other=0.0)
        d = tl.load(delta_ptr + seq + t, mask=ch_mask, other=0.0)
        z = tl.load(z_ptr + seq + t, mask=ch_mask, other=0.0)
        Bt = tl.load(b_ptr + pid_b * N * L + t * N + ns, mask=n_mask, other=0.0)
        Ct = tl.load(c_ptr + bc + t, mask=n_mask, other=0.0)
        dt = tl.where(d > 20.0, d, tl.log(1.0 + tl.exp(d)))
        dA = tl.exp(dt[:, None] * A)
        h = dA * h + (dt * u)[:, None] * Bt[None, :]
        y = tl.sum(h * Ct[None, :], axis=1) + Dv * u
        out = y * (z / (1.0 + tl.exp(-z)))
        tl.store(out_ptr + seq + t, out, mask=ch_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, u, delta, A, Bm, Cm, Dskip, z):
        u, delta, z = u.contiguous(), delta.contiguous(), z.contiguous()
        A, Bm, Cm, Dskip = A.contiguous(), Bm.contiguous(), Cm.contiguous(), Dskip.contiguous()
        Bsz, D, L = u.shape
        N = A.shape[1]
        out = torch.empty_like(u)
        BLOCK_D = 16
        BLOCK_N = triton.next_power_of_2(N)
        grid = (Bsz, triton.cdiv(D, BLOCK_D))
        selective_scan_kernel[grid](u, delta, A, Bm, Cm, Dskip, z, out, D, L, N, BLOCK_D=BLOCK_D, BLOCK_N=BLOCK_N)
        return out
