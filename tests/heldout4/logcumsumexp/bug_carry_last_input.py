"""Triton row-wise log-cumulative-sum-exp, one program per row, blocks of BLOCK with a carry.

Each block is scanned with tl.associative_scan under a stable log-add-exp combine
(max(a, b) + log(1 + exp(min - max)), -inf when both are -inf); the block prefix is then
log-added to the carry (the logcumsumexp of everything before the block, -inf at the start),
and the block's last output becomes the next carry.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_add_exp(a, b):
    hi = tl.maximum(a, b)
    lo = tl.minimum(a, b)
    return tl.where(hi == float("-inf"), hi, hi + tl.log(1.0 + tl.exp(lo - hi)))


@triton.jit
def logcumsumexp_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * n_cols
    o_row = out_ptr + row * n_cols
    carry = tl.full((), float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        v = tl.load(x_row + cols, mask=m, other=float("-inf")).to(tl.float32)
        pref = tl.associative_scan(v, 0, log_add_exp)
        pref = log_add_exp(pref, carry)
        tl.store(o_row + cols, pref, mask=m)
        carry = log_add_exp(carry, tl.max(v, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        logcumsumexp_kernel[(R,)](x, out, C, BLOCK=256)
        return out
