"""Softplus written stably: max(x, 0) + log1p(exp(-|x|)).

exp(-|x|) is in (0, 1], so nothing overflows. Triton has no log1p outside libdevice, so log1p(z) is
computed as log(u) * z / (u - 1) with u = 1 + z (exact up to a few ulps; z itself where u rounds to 1).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.exp(-tl.abs(x))
    u = 1.0 + z
    d = tl.where(u == 1.0, 1.0, u - 1.0)
    log1p_z = tl.where(u == 1.0, z, tl.log(u) * (z / d))
    y = tl.maximum(x, 0.0) + log1p_z
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        softplus_kernel[(triton.cdiv(n, 2048),)](x, y, n, BLOCK_SIZE=2048)
        return y
