"""LayerNorm over a non-power-of-2 width, bf16, with weight and bias.

50 rows x 1500 columns: a kernel looping over 512-wide column blocks sees two full blocks and a
tail of 476 lanes per row. Inputs carry a large per-row offset (std 64, against a spread of 1 within the row).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, WIDTH = 50, 1500
EPS = 1e-5


class Model(nn.Module):
    def __init__(self, width: int, eps: float):
        super().__init__()
        self.width = width
        self.eps = eps
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(width)).to(torch.bfloat16))
        self.bias = nn.Parameter((0.1 * torch.randn(width)).to(torch.bfloat16))

    def forward(self, x: torch.Tensor):
        return F.layer_norm(x, (self.width,), self.weight, self.bias, self.eps)


def get_inputs():
    x = torch.randn(ROWS, WIDTH) + 64.0 * torch.randn(ROWS, 1)
    return [x.to(torch.bfloat16)]


def get_init_inputs():
    return [WIDTH, EPS]
