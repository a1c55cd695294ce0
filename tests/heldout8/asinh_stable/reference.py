"""Elementwise inverse hyperbolic sine.

x is (64, 1000) fp32 drawn as 3 * randn; out = torch.asinh(x).
"""

import torch
import torch.nn as nn

ROWS = 64
COLS = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.asinh(x)


def get_inputs():
    return [3.0 * torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
