"""Triton gated RMSNorm, out = y / sqrt(mean(y^2) + eps) * w with y = x * silu(z), bf16 in and out.

One program per token row, two passes over chunks of 256 (640 = 2 x 256 + 128). Everything is
computed in fp32 from the bf16 loads (silu(z) = z / (1 + exp(-z))): pass 1 accumulates y^2
lane-wise, the mean divides by the hidden size, pass 2 recomputes y and writes y * rstd * w[col]
rounded once to bf16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

HIDDEN = 640
EPS = 1e-5


@triton.jit
def _gated(x, z):
    return z * (x / (1.0 + tl.exp(-x)))


@triton.jit
def gated_rmsnorm_kernel(x_ptr, z_ptr, w_ptr, out_ptr, N, stride_x, stride_z, stride_o, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + row * stride_z + cols, mask=mask, other=0.0).to(tl.float32)
        y = _gated(x, z)
        acc += y * y
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + row * stride_z + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        out = _gated(x, z) * rstd * w
        tl.store(out_ptr + row * stride_o + cols, out.to(tl.bfloat16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(HIDDEN)).to(torch.bfloat16))

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        z = z.contiguous()
        T, N = x.shape
        out = torch.empty_like(x)
        gated_rmsnorm_kernel[(T,)](x, z, self.weight, out, N, x.stride(0), z.stride(0), out.stride(0), EPS, BLOCK=256)
        return out
