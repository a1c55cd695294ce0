"""Triton sample covariance in two kernels. Kernel 1: one program per BLOCK_V = 16 variables (V 40:
tail 8) sums the observations in chunks of BLOCK_N = 128 (N 300: tail 44), widened to fp32, into the
means (an fp32 scratch vector). Kernel 2: one program per (16 x 16) tile of C (a 3 x 3 grid, tails 8)
walks the observations in chunks of 64 (tail 44): both operand tiles loaded through the variable /
observation strides passed from the host (x is a transposed view), centred by their means, the
(16 x 16 x 64) products added into lane accumulators with the lanes past N kept out, and the lanes
summed once at the end and divided by N - 1.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mean_kernel(x_ptr, mean_ptr, V, N, sx_v, sx_n, BLOCK_V: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_V + tl.arange(0, BLOCK_V)
    rmask = rows < V
    s = tl.zeros([BLOCK_V], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        m = rmask[:, None] & (n[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * sx_v + n[None, :] * sx_n, mask=m, other=0.0).to(tl.float32)
        s += tl.sum(x, axis=1)
    tl.store(mean_ptr + rows, s / (N - 1), mask=rmask)


@triton.jit
def cov_kernel(x_ptr, mean_ptr, c_ptr, V, N, sx_v, sx_n, sc_v, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    ri = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rj = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mi = ri < V
    mj = rj < V
    mean_i = tl.load(mean_ptr + ri, mask=mi, other=0.0)
    mean_j = tl.load(mean_ptr + rj, mask=mj, other=0.0)
    acc = tl.zeros([BLOCK, BLOCK, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        nm = n < N
        xi = tl.load(x_ptr + ri[:, None] * sx_v + n[None, :] * sx_n, mask=mi[:, None] & nm[None, :], other=0.0)
        xj = tl.load(x_ptr + rj[:, None] * sx_v + n[None, :] * sx_n, mask=mj[:, None] & nm[None, :], other=0.0)
        ci = xi.to(tl.float32) - mean_i[:, None]
        cj = xj.to(tl.float32) - mean_j[:, None]
        prod = ci[:, None, :] * cj[None, :, :]
        acc += tl.where(nm[None, None, :], prod, 0.0)
    out = tl.sum(acc, axis=2) / (N - 1)
    tl.store(c_ptr + ri[:, None] * sc_v + rj[None, :], out, mask=mi[:, None] & mj[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        V, N = x.shape
        mean = torch.empty(V, dtype=torch.float32, device=x.device)
        c = torch.empty(V, V, dtype=torch.float32, device=x.device)
        BLOCK_V, BLOCK_N = 16, 128
        mean_kernel[(triton.cdiv(V, BLOCK_V),)](
            x, mean, V, N, x.stride(0), x.stride(1), BLOCK_V=BLOCK_V, BLOCK_N=BLOCK_N
        )
        BLOCK = 16
        grid = (triton.cdiv(V, BLOCK), triton.cdiv(V, BLOCK))
        cov_kernel[grid](x, mean, c, V, N, x.stride(0), x.stride(1), c.stride(0), BLOCK=BLOCK, BLOCK_N=64)
        return c
