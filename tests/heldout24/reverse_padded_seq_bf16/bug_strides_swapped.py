"""Triton length-aware sequence reversal: one program per (batch row, BLOCK_T = 16 steps) with
the feature axis walked in chunks of BLOCK_D = 32 (T = 37: tail 5; D = 48: tail 16). Each output
step t reads step len - 1 - t when t < len and step t otherwise (the row's int64 length loaded
once), x read through the batch and step strides passed from the host; out is contiguous.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def reverse_seq_kernel(x_ptr, len_ptr, out_ptr, T, D, sx_b, sx_t, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    n = tl.load(len_ptr + b)
    src_t = tl.where(t < n, n - 1 - t, t)
    tm = t < T
    d = tl.arange(0, BLOCK_D)
    for d0 in range(0, D, BLOCK_D):
        m = tm[:, None] & (d0 + d[None, :] < D)
        v = tl.load(x_ptr + b * sx_b + src_t[:, None] * sx_t + d0 + d[None, :], mask=m, other=0.0)
        tl.store(out_ptr + (b * T + t[:, None]) * D + d0 + d[None, :], v, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, lengths):
        B, T, D = x.shape
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
        BLOCK_T, BLOCK_D = 16, 32
        grid = (B, triton.cdiv(T, BLOCK_T))
        reverse_seq_kernel[grid](x, lengths, out, T, D, x.stride(1), x.stride(0), BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
        return out
