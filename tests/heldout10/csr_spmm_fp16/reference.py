"""Sparse (CSR) times dense: Y = A X, fp16 operands, fp32 result.

A is (ROWS, COLS) in CSR form: crow (ROWS + 1,) int64 row pointers, col (nnz,) int64 column
indices and val (nnz,) fp16 values; row r holds the entries crow[r] <= e < crow[r + 1] (0 to 24 per
row, some rows empty, columns may repeat). X is (COLS, FEAT) fp16. Y[r] = sum_e val[e] X[col[e]],
products and sums in (at least) fp32, Y fp32; empty rows are 0.
"""

import torch
import torch.nn as nn

ROWS = 160
COLS = 200
FEAT = 40
MAX_PER_ROW = 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, crow: torch.Tensor, col: torch.Tensor, val: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        n_rows = crow.numel() - 1
        ct = torch.promote_types(val.dtype, torch.float32)
        rows = torch.repeat_interleave(torch.arange(n_rows, device=crow.device), crow.diff())
        contrib = val.to(ct)[:, None] * x.to(ct)[col]
        y = torch.zeros(n_rows, x.shape[1], dtype=ct, device=x.device)
        return y.index_add_(0, rows, contrib)


def get_inputs():
    lengths = torch.randint(0, MAX_PER_ROW + 1, (ROWS,))
    lengths[::7] = 0
    crow = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    nnz = int(crow[-1])
    col = torch.randint(0, COLS, (nnz,))
    val = torch.randn(nnz, dtype=torch.float16)
    x = torch.randn(COLS, FEAT, dtype=torch.float16)
    return [crow, col, val, x]


def get_init_inputs():
    return []
