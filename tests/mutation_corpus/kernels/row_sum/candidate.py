"""Row sum: loop over column blocks, fp32 per-lane accumulator, one tl.sum and one rounding to fp16 at the end."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    row_ptr = x_ptr + pid * stride_row
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for col_start in range(0, n_cols, BLOCK_SIZE):
        cols = col_start + tl.arange(0, BLOCK_SIZE)
        vals = tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0)
        acc += vals.to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + pid, total.to(tl.float16))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        row_sum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK_SIZE=1024)
        return out
