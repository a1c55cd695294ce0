"""L2-normalise rows: F.normalize(x, p=2, dim=1, eps=1e-12) on fp32 (150, 333)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, COLS = 150, 333


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(x, p=2.0, dim=1, eps=1e-12)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
