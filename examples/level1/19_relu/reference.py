"""Elementwise ReLU: torch.relu(x) for x of shape (64, 4096), fp32."""

import torch
import torch.nn as nn

BATCH = 64
DIM = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    x = torch.randn(BATCH, DIM, dtype=torch.float32)
    return [x]


def get_init_inputs():
    return []
