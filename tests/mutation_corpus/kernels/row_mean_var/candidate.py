"""Row mean and variance, streaming over column blocks: Welford's update per lane, then the lanes' counts,
means and M2 merged with Chan's parallel formula (no E[x^2] - mean^2 cancellation anywhere)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_mean_var_kernel(x_ptr, mean_ptr, var_ptr, n_cols, stride_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * stride_row
    count = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        new_count = count + mask.to(tl.float32)
        delta = x - mean
        mean = tl.where(mask, mean + delta / tl.maximum(new_count, 1.0), mean)
        m2 = tl.where(mask, m2 + delta * (x - mean), m2)
        count = new_count
    # merge the lanes: total mean, then M2 = sum(m2_i) + sum(n_i * (mean_i - total_mean)^2)
    total = tl.sum(count, axis=0)
    row_mean = tl.sum(count * mean, axis=0) / total
    d = mean - row_mean
    row_m2 = tl.sum(m2, axis=0) + tl.sum(count * d * d, axis=0)
    tl.store(mean_ptr + row, row_mean)
    tl.store(var_ptr + row, row_m2 / total)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        x = x.contiguous()
        M, N = x.shape
        mean = torch.empty(M, dtype=x.dtype, device=x.device)
        var = torch.empty(M, dtype=x.dtype, device=x.device)
        row_mean_var_kernel[(M,)](x, mean, var, N, x.stride(0), BLOCK_SIZE=512)
        return mean, var
