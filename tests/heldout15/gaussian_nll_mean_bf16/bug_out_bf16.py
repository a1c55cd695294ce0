"""Triton Gaussian NLL (mean) as two kernels: per-block partial sums, then one final program.

1. gnll_partial_kernel: blocks of 1024 over the flat N = 19200 elements (tail 768). bf16 loads
   widened to fp32 at once; v = max(var, EPS), loss = 0.5 (log v + (mu - t)^2 / v). Padding lanes
   load mu = t = 0 and var = 1, so their loss is 0.5 (log 1 + 0) = 0 and they add nothing to the
   block's fp32 partial sum.
2. gnll_final_kernel: one program sums the partials (at most 32) and divides by N, fp32 scalar.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def gnll_partial_kernel(mu_ptr, t_ptr, var_ptr, part_ptr, N, EPS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    mu = tl.load(mu_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    v = tl.maximum(var, EPS)
    diff = mu - t
    loss = 0.5 * (tl.log(v) + diff * diff / v)
    tl.store(part_ptr + pid, tl.sum(loss, axis=0))


@triton.jit
def gnll_final_kernel(part_ptr, out_ptr, n_parts, N, BLOCK_P: tl.constexpr):
    p = tl.arange(0, BLOCK_P)
    parts = tl.load(part_ptr + p, mask=p < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(parts, axis=0) / N)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mu: torch.Tensor, target: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
        mu, target, var = mu.contiguous(), target.contiguous(), var.contiguous()
        N = mu.numel()
        BLOCK = 1024
        n_parts = triton.cdiv(N, BLOCK)
        parts = torch.empty((n_parts,), dtype=torch.float32, device=mu.device)
        out = torch.empty((), dtype=mu.dtype, device=mu.device)
        gnll_partial_kernel[(n_parts,)](mu, target, var, parts, N, EPS=EPS, BLOCK=BLOCK)
        BLOCK_P = triton.next_power_of_2(n_parts)
        gnll_final_kernel[(1,)](parts, out, n_parts, N, BLOCK_P=BLOCK_P)
        return out
