"""Elementwise sum of two fp32 vectors of 10_000 elements (not a multiple of any power-of-two block)."""

import torch
import torch.nn as nn

N = 10_000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


def get_inputs():
    return [torch.randn(N, dtype=torch.float32), torch.randn(N, dtype=torch.float32)]


def get_init_inputs():
    return []
