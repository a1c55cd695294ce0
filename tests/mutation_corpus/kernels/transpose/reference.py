"""Transpose of an fp32 (300, 170) matrix, returned contiguous: (170, 300)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(300, 170, dtype=torch.float32)]


def get_init_inputs():
    return []
