"""Integral image (summed-area table) of 16-bit images stored as int32, int64 out.

x is (BATCH, HEIGHT, WIDTH) int32 with values in [0, 65536); out[b, i, j] = sum of x[b, :i + 1, :j + 1]
= x.cumsum(-1).cumsum(-2), which PyTorch returns as int64 (a cumsum of int32 promotes). Totals
reach ~2.4e9, past the int32 range. Exact.
"""

import torch
import torch.nn as nn

BATCH = 2
HEIGHT = 181
WIDTH = 203


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.cumsum(dim=-1).cumsum(dim=-2)


def get_inputs():
    x = torch.randint(0, 65536, (BATCH, HEIGHT, WIDTH), dtype=torch.int32)
    return [x]


def get_init_inputs():
    return []
