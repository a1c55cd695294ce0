"""Row L2 normalisation: whole row in one block, x / max(||x||, eps)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2_normalize_kernel(x_ptr, out_ptr, stride_row, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride_row + offs, mask=mask, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    norm = tl.maximum(norm, eps)
    tl.store(out_ptr + row * stride_row + offs, x / norm, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        l2_normalize_kernel[(rows,)](x, out, x.stride(0), cols, 1e-12, BLOCK=triton.next_power_of_2(cols))
        return out
