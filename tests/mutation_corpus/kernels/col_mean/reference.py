"""Mean over dim 0 (down the columns) of an fp32 (1000, 300) tensor."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=0)


def get_inputs():
    return [torch.randn(1000, 300, dtype=torch.float32)]


def get_init_inputs():
    return []
