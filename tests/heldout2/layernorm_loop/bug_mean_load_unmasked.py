"""LayerNorm: one program per row, three loops over column blocks (mean, centred variance, output)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride_row, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_row + cols).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols, y.to(tl.bfloat16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, width: int, eps: float):
        super().__init__()
        self.width = width
        self.eps = eps
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(width)).to(torch.bfloat16))
        self.bias = nn.Parameter((0.1 * torch.randn(width)).to(torch.bfloat16))

    def forward(self, x: torch.Tensor):
        rows, n_cols = x.shape
        y = torch.empty_like(x)
        layernorm_kernel[(rows,)](x, self.weight, self.bias, y, n_cols, x.stride(0), self.eps, BLOCK=512)
        return y
