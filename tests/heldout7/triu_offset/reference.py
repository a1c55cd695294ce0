"""Upper-triangular masked copy with a diagonal offset, batched over non-square matrices.

x is (3, 70, 90) fp32; out = torch.triu(x, diagonal=DIAG) with DIAG = 2: element (i, j) is
kept where j - i >= 2 and set to 0 elsewhere.
"""

import torch
import torch.nn as nn

BATCH = 3
ROWS = 70
COLS = 90
DIAG = 2


class Model(nn.Module):
    def __init__(self, diagonal: int):
        super().__init__()
        self.diagonal = diagonal

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.triu(x, diagonal=self.diagonal)


def get_inputs():
    return [torch.randn(BATCH, ROWS, COLS)]


def get_init_inputs():
    return [DIAG]
