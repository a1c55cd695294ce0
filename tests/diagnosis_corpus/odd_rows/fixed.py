import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_one_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    for r in range(2):
        row = tl.program_id(0) * 2 + r
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(out_ptr + row * n_cols + cols, x + 1.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        rows, cols = x.shape
        out = torch.empty_like(x)
        add_one_kernel[(rows // 2,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
