"""ReLU on an fp16 tensor of shape (250, 333)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(250, 333, dtype=torch.float16)]


def get_init_inputs():
    return []
