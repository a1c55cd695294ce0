"""GELU with the tanh approximation, fp32, shape (97, 513)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="tanh")


def get_inputs():
    return [3.0 * torch.randn(97, 513, dtype=torch.float32)]


def get_init_inputs():
    return []
