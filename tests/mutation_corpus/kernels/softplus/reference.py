"""Softplus log(1 + exp(x)) in fp32, shape (80, 400), inputs of spread 10 (both tails matter)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(x)


def get_inputs():
    return [10.0 * torch.randn(80, 400, dtype=torch.float32)]


def get_init_inputs():
    return []
