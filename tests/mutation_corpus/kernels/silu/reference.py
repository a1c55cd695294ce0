"""SiLU (x * sigmoid(x)) on an fp32 tensor of shape (33, 3000)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


def get_inputs():
    return [4.0 * torch.randn(33, 3000, dtype=torch.float32)]


def get_init_inputs():
    return []
