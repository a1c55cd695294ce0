"""Residual add then LayerNorm: y = layer_norm(x + residual) with weight and bias, fp32 (32, 900), eps = 1e-5."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 32
HIDDEN = 900
EPS = 1e-5


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        h = x + residual
        return F.layer_norm(h, (h.shape[-1],), self.weight, self.bias, self.eps)


def get_inputs():
    return [torch.randn(ROWS, HIDDEN), torch.randn(ROWS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, EPS]
