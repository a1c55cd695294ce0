"""int8 quantizer: x / scale clamped to [-128, 127], rounded half to even, then cast.

A float->int cast truncates toward zero, so the rounding happens first in float: adding and subtracting
1.5 * 2^23 rounds any |y| < 2^22 to the nearest integer, ties to even (the fp32 add itself rounds that way).
Clamping first keeps |y| <= 128 and gives the same result as rounding first, the bounds being integers.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def quantize_kernel(x_ptr, q_ptr, n_elements, inv_scale, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = x * inv_scale
    y = tl.minimum(tl.maximum(y, -128.0), 127.0)
    rounded = (y + 12582912.0) - 12582912.0
    tl.store(q_ptr + offsets, rounded.to(tl.int8), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        q = torch.empty(x.shape, dtype=torch.int8, device=x.device)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731
        quantize_kernel[grid](x, q, n, 1.0 / self.scale, BLOCK_SIZE=1024)
        return q
