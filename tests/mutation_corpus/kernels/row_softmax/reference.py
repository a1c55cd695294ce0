"""Softmax over the last dimension of an fp32 (123, 781) tensor."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(123, 781, dtype=torch.float32)]


def get_init_inputs():
    return []
