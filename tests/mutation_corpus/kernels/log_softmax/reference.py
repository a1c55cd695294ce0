"""log_softmax over dim 1 of an fp32 (64, 1500) tensor."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=1)


def get_inputs():
    return [torch.randn(64, 1500, dtype=torch.float32)]


def get_init_inputs():
    return []
