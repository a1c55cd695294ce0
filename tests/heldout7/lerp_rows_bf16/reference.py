"""Linear interpolation between two tensors with one weight per row.

a and b are (300, 157) bf16, w is (300, 1) bf16 in [0, 1) broadcast along each row:
out = torch.lerp(a, b, w) = a + w (b - a), bf16.
"""

import torch
import torch.nn as nn

ROWS = 300
COLS = 157


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.lerp(a, b, w)


def get_inputs():
    a = torch.randn(ROWS, COLS, dtype=torch.bfloat16)
    b = torch.randn(ROWS, COLS, dtype=torch.bfloat16)
    w = torch.rand(ROWS, 1, dtype=torch.bfloat16)
    return [a, b, w]


def get_init_inputs():
    return []
