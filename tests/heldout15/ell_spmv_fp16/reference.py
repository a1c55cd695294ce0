"""Sparse matrix times vector in ELLPACK format: y = A x.

A (M, NCOLS) is stored as two (M, WIDTH) arrays: cols (int32) and vals (fp16), row r's non-zeros
first, padded to WIDTH with col = -1 and val = 0. Rows hold 0..WIDTH entries (some rows empty,
some full), and a column may repeat within a row (duplicates add). x (NCOLS,) fp16. y (M,) fp32:
products and sums in fp32 (fp64 for the golden).
"""

import torch
import torch.nn as nn

M = 300
NCOLS = 257
WIDTH = 12


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, cols: torch.Tensor, vals: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(vals.dtype, torch.float32)
        valid = cols >= 0
        gathered = x.to(ct)[cols.clamp(min=0).long()]
        return torch.where(valid, vals.to(ct) * gathered, torch.zeros((), dtype=ct, device=x.device)).sum(dim=1)


def get_inputs():
    nnz = torch.randint(0, WIDTH + 1, (M,))
    nnz[::25] = 0
    nnz[7::25] = WIDTH
    cols = torch.randint(0, NCOLS, (M, WIDTH), dtype=torch.int32)
    slot = torch.arange(WIDTH)[None, :]
    cols = torch.where(slot < nnz[:, None], cols, torch.full_like(cols, -1))
    vals = torch.where(slot < nnz[:, None], torch.randn(M, WIDTH), torch.zeros(M, WIDTH))
    x = torch.randn(NCOLS)
    x[::31] *= 40.0
    return [cols, vals.half(), x.half()]


def get_init_inputs():
    return []
