"""Sum over dim 1 of an fp16 (37, 5000) tensor; the result is fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(37, 5000, dtype=torch.float16)]


def get_init_inputs():
    return []
