"""Per-row polynomial evaluation: each row of x has its own degree-5 polynomial.

x is (64, 500) fp32 in [-1.5, 1.5), coeffs is (64, 6) fp32 with coeffs[r, k] the coefficient of
x^k (lowest degree first): out[r, j] = sum_k coeffs[r, k] x[r, j]^k, fp32.
"""

import torch
import torch.nn as nn

ROWS = 64
COLS = 500
DEGREE = 5


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, coeffs: torch.Tensor) -> torch.Tensor:
        n = coeffs.shape[1]
        out = coeffs[:, n - 1 : n].expand_as(x)
        for k in range(n - 2, -1, -1):
            out = out * x + coeffs[:, k : k + 1]
        return out


def get_inputs():
    x = torch.rand(ROWS, COLS) * 3.0 - 1.5
    coeffs = torch.randn(ROWS, DEGREE + 1)
    return [x, coeffs]


def get_init_inputs():
    return []
