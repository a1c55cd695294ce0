"""Elementwise log(exp(a) + exp(b)) with b broadcast over the rows of a.

a is (123, 357) fp32 and b is (357,) fp32; out = torch.logaddexp(a, b), shape (123, 357).
"""

import torch
import torch.nn as nn

ROWS = 123
COLS = 357


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.logaddexp(a, b)


def get_inputs():
    return [2.0 * torch.randn(ROWS, COLS), 2.0 * torch.randn(COLS)]


def get_init_inputs():
    return []
