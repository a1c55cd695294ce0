"""Fused residual add + LayerNorm: one row per program, loops over 256-column blocks (mean, variance, normalise)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add_layernorm_fwd(X, R, Y, W, B, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    R += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        m = cols < N
        h = tl.load(X + cols, mask=m, other=0.0) + tl.load(R + cols, mask=m, other=0.0)
        acc += h
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        m = cols < N
        h = tl.load(X + cols, mask=m, other=0.0) + tl.load(R + cols, mask=m, other=0.0)
        d = tl.where(m, h - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        m = cols < N
        h = tl.load(X + cols, mask=m, other=0.0) + tl.load(R + cols, mask=m, other=0.0)
        w = tl.load(W + cols, mask=m)
        b = tl.load(B + cols, mask=m)
        tl.store(Y + cols, (h - mean) * rstd * w + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        residual = residual.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        _add_layernorm_fwd[(M,)](x, residual, y, self.weight, self.bias, x.stride(0), N, self.eps, BLOCK_SIZE=256)
        return y
