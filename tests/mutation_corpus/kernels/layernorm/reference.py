"""LayerNorm over the last dimension with a learned weight and bias: fp32 (100, 700), eps = 1e-5."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 100
HIDDEN = 700
EPS = 1e-5


class Model(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = nn.Parameter(0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


def get_inputs():
    return [torch.randn(ROWS, HIDDEN, dtype=torch.float32)]


def get_init_inputs():
    return [HIDDEN, EPS]
