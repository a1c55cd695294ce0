"""Triton per-row mean squared error of two contiguous (R, N) fp16 tensors, fp32 output.

One program per row walks the row in chunks of BLOCK (masked tail, padding lanes load 0 in
both inputs so their difference is 0). Differences and squares are taken in fp32 and summed
in an fp32 vector accumulator, reduced once at the end and divided by N.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mse_rows_kernel(
    x_ptr,
    y_ptr,
    out_ptr,
    N,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    x_row = x_ptr + row * N
    y_row = y_ptr + row * N
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(x_row + cols, mask=m, other=0.0)
        y = tl.load(y_row + cols, mask=m, other=0.0)
        d = x.to(tl.float32) - y.to(tl.float32)
        acc += d * d
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total / N)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = y.contiguous()
        R, N = x.shape
        out = torch.empty(R, device=x.device, dtype=x.dtype)
        BLOCK = 128
        mse_rows_kernel[(R,)](x, y, out, N, BLOCK=BLOCK)
        return out
