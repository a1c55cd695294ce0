"""Triton exact GELU, x * Phi(x) = 0.5 x erfc(-x / sqrt(2)), one program per BLOCK elements.

erfc(z) for z >= 0 is the Chebyshev fit of Numerical Recipes' erfcc (fractional error below
1.2e-7 everywhere, so it stays accurate in the far tail); for z < 0 it is 2 - erfc(-z). Because
the negative-x branch evaluates erfc of a positive argument directly, the tiny outputs at very
negative x keep their relative accuracy (no 1 + erf cancellation). Flat tail masked.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _erfc_pos(z):
    t = 1.0 / (1.0 + 0.5 * z)
    p = 1.48851587 + t * -0.82215223
    p = -1.13520398 + t * p
    p = 0.27886807 + t * p
    p = -0.18628806 + t * p
    p = 0.09678418 + t * p
    p = 0.37409196 + t * p
    p = 1.00002368 + t * p
    p = -1.26551223 + t * p
    return t * tl.exp(-z * z + p)


@triton.jit
def erf_gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    z = -x * 0.7071067811865476
    ec = _erfc_pos(tl.abs(z))
    erfc_z = tl.where(z >= 0, ec, 2.0 - ec)
    y = 0.5 * x * erfc_z
    tl.store(out_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        grid = (triton.cdiv(n, BLOCK),)
        erf_gelu_kernel[grid](x, out, n, BLOCK=BLOCK)
        return out
