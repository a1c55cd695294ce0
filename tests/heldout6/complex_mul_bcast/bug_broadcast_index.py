"""Triton interleaved complex multiply with a broadcast operand, flat over complex elements.

The B * N complex samples of x are numbered k = b * N + n; sample k has its real part at float
offset 2 k and its imaginary part at 2 k + 1, and it is multiplied by y's sample n = k % N.
(a + bi)(c + di) = (ac - bd) + (ad + bc)i, in fp32, written back interleaved.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def complex_mul_kernel(x_ptr, y_ptr, out_ptr, total, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = pid * BLOCK + tl.arange(0, BLOCK)
    mask = k < total
    n = k // N
    xr = tl.load(x_ptr + 2 * k, mask=mask, other=0.0)
    xi = tl.load(x_ptr + 2 * k + 1, mask=mask, other=0.0)
    yr = tl.load(y_ptr + 2 * n, mask=mask, other=0.0)
    yi = tl.load(y_ptr + 2 * n + 1, mask=mask, other=0.0)
    re = xr * yr - xi * yi
    im = xr * yi + xi * yr
    tl.store(out_ptr + 2 * k, re, mask=mask)
    tl.store(out_ptr + 2 * k + 1, im, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = y.contiguous()
        B, N, _ = x.shape
        out = torch.empty_like(x)
        total = B * N
        BLOCK = 512
        grid = (triton.cdiv(total, BLOCK),)
        complex_mul_kernel[grid](x, y, out, total, N, BLOCK=BLOCK)
        return out
