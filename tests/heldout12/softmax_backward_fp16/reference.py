"""Softmax backward over the last dim: dx = y (dy - sum_j y_j dy_j), from the softmax output y.

y is a softmax output (ROWS, COLS) and dy the upstream gradient, both fp16; the gradient here has
a common offset (~4 + N(0, 1)), as when the loss adds a bias to every logit, so the row dot
product sum_j y_j dy_j sits near 4 and dy - dot is of order 1. Computed in fp32 (fp64 when the
inputs are), returned in the input dtype.
"""

import torch
import torch.nn as nn

ROWS = 200
COLS = 700


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, y: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(y.dtype, torch.float32)
        yf = y.to(ct)
        g = dy.to(ct)
        dot = (yf * g).sum(dim=-1, keepdim=True)
        return (yf * (g - dot)).to(y.dtype)


def get_inputs():
    y = torch.softmax(torch.randn(ROWS, COLS), dim=-1).to(torch.float16)
    dy = (4.0 + torch.randn(ROWS, COLS)).to(torch.float16)
    return [y, dy]


def get_init_inputs():
    return []
