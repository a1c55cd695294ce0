"""Bias add then exact (erf) GELU: fp32 (128, 770) activations plus a per-feature bias."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, FEATURES = 128, 770


class Model(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x + self.bias)


def get_inputs():
    return [torch.randn(ROWS, FEATURES)]


def get_init_inputs():
    return [FEATURES]
