"""BUG (input-dependent): softmax without subtracting the row max.

exp(x) / sum(exp(x)) is the same function in exact arithmetic, and on the task's standard-normal
inputs it passes. But exp overflows fp32 for x > ~88.7: with large-magnitude logits the row sum
becomes inf, the largest entries inf / inf = NaN and the rest 0, where the true softmax is
finite everywhere.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x)  # BUG: no max subtraction, overflows for x > ~88.7
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_out + cols, num / den, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        BLOCK = triton.next_power_of_2(n_cols)
        softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=BLOCK)
        return out
