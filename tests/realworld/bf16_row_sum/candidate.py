"""Row sums of bf16 data: loads in bf16, accumulates in fp32 over column blocks, stores bf16."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr, ACC_DTYPE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=ACC_DTYPE)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(ACC_DTYPE)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


ACC_DTYPE = tl.float32


def row_sum(x):
    out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
    row_sum_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=8, ACC_DTYPE=ACC_DTYPE)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        return row_sum(x.contiguous())
