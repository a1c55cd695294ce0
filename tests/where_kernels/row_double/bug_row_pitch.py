import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_rows_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < C
    x = tl.load(x_ptr + row * (C + 1) + cols, mask=inside, other=0.0)
    tl.store(out_ptr + row * C + cols, x * 2.0, mask=inside)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        double_rows_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=512)
        return out
