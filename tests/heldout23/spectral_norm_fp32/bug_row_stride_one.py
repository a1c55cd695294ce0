"""Triton spectral normalisation (one power-iteration step), three kernels:

1. t = w^T u: one program per BLOCK_J = 64 input columns (IN = 150: tail 22) walks the rows in
   chunks of BLOCK_I = 32 (OUT = 70: tail 6), products into a (rows x columns) fp32 tile reduced
   over the rows once; t goes to an fp32 (IN,) workspace.
2. sigma (one program): |t| from a loop over t, v = t / max(|t|, 1e-12); then per block of rows
   wv = w v (a loop over column chunks into a tile reduced over the columns) and the sum of wv^2;
   sigma = u' . wv = |wv| goes to a 1-element workspace.
3. out = w / sigma on (32 x 64) tiles.

w is read through the row stride passed from the host.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def wtu_kernel(w_ptr, u_ptr, t_ptr, OUT, IN, stride_w, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    jj = tl.program_id(0) * BLOCK_J + tl.arange(0, BLOCK_J)
    jm = jj < IN
    acc = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float32)
    for i0 in range(0, OUT, BLOCK_I):
        ii = i0 + tl.arange(0, BLOCK_I)
        im = ii < OUT
        u = tl.load(u_ptr + ii, mask=im, other=0.0)
        w = tl.load(w_ptr + ii[:, None] * stride_w + jj[None, :], mask=im[:, None] & jm[None, :], other=0.0)
        acc += w * u[:, None]
    tl.store(t_ptr + jj, tl.sum(acc, axis=0), mask=jm)


@triton.jit
def sigma_kernel(
    w_ptr, t_ptr, sigma_ptr, OUT, IN, stride_w, EPS: tl.constexpr, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr
):
    lanes = tl.arange(0, BLOCK_J)
    sq = tl.zeros([BLOCK_J], dtype=tl.float32)
    for j0 in range(0, IN, BLOCK_J):
        t = tl.load(t_ptr + j0 + lanes, mask=j0 + lanes < IN, other=0.0)
        sq += t * t
    inv_nt = 1.0 / tl.maximum(tl.sqrt(tl.sum(sq, axis=0)), EPS)
    s2 = tl.zeros([BLOCK_I], dtype=tl.float32)
    for i0 in range(0, OUT, BLOCK_I):
        ii = i0 + tl.arange(0, BLOCK_I)
        im = ii < OUT
        acc = tl.zeros([BLOCK_I, BLOCK_J], dtype=tl.float32)
        for j0 in range(0, IN, BLOCK_J):
            jj = j0 + lanes
            jm = jj < IN
            t = tl.load(t_ptr + jj, mask=jm, other=0.0)
            w = tl.load(w_ptr + ii[:, None] * stride_w + jj[None, :], mask=im[:, None] & jm[None, :], other=0.0)
            acc += w * t[None, :]
        wv = tl.sum(acc, axis=1) * inv_nt
        s2 += wv * wv
    sigma = tl.sqrt(tl.sum(s2, axis=0))
    tl.store(sigma_ptr, sigma)


@triton.jit
def scale_kernel(w_ptr, sigma_ptr, out_ptr, OUT, IN, stride_w, BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    ii = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    jj = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)
    m = (ii[:, None] < OUT) & (jj[None, :] < IN)
    sigma = tl.load(sigma_ptr)
    w = tl.load(w_ptr + ii[:, None] * stride_w + jj[None, :], mask=m, other=0.0)
    tl.store(out_ptr + ii[:, None] * IN + jj[None, :], w / sigma, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, w, u):
        u = u.contiguous()
        OUT, IN = w.shape
        t = torch.empty(IN, dtype=torch.float32, device=w.device)
        sigma = torch.empty(1, dtype=torch.float32, device=w.device)
        out = torch.empty((OUT, IN), dtype=w.dtype, device=w.device)
        BLOCK_I, BLOCK_J = 32, 64
        sw = w.stride(1)
        wtu_kernel[(triton.cdiv(IN, BLOCK_J),)](w, u, t, OUT, IN, sw, BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
        sigma_kernel[(1,)](w, t, sigma, OUT, IN, sw, EPS=1e-12, BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
        grid = (triton.cdiv(OUT, BLOCK_I), triton.cdiv(IN, BLOCK_J))
        scale_kernel[grid](w, sigma, out, OUT, IN, sw, BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
        return out
