"""Sum over both trailing axes: fp32 (12, 130, 90) -> (12,), i.e. x.sum(dim=(1, 2))."""

import torch
import torch.nn as nn

BATCH, H, W = 12, 130, 90


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=(1, 2))


def get_inputs():
    return [torch.randn(BATCH, H, W)]


def get_init_inputs():
    return []
