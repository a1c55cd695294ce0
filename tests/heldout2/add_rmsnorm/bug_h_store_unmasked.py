"""Fused residual add + RMSNorm: one program per row, fp32 statistics, masked tail."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_rmsnorm_kernel(x_ptr, res_ptr, w_ptr, out_ptr, h_ptr, n_cols, stride_row, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    base = row * stride_row
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(res_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
    h = x + r
    tl.store(h_ptr + base + cols, h.to(tl.float16))
    ms = tl.sum(h * h, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = h * rstd * w
    tl.store(out_ptr + base + cols, y.to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(hidden)).to(torch.float16))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        rows, n_cols = x.shape
        out = torch.empty_like(x)
        h = torch.empty_like(x)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        add_rmsnorm_kernel[(rows,)](
            x, residual, self.weight, out, h, n_cols, x.stride(0), self.eps, BLOCK_SIZE=BLOCK_SIZE
        )
        return out, h
