import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(X, W, Y, stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X + row * stride + cols).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(ms + eps)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden) * 0.1 + 1.0)
        self.eps = eps

    def forward(self, x):
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        grid = lambda meta: (n_rows,)
        rmsnorm_kernel[grid](x, self.weight.half(), y, x.stride(0), n_cols, self.eps, BLOCK_SIZE=triton.next_power_of_2(n_cols))
        return y
