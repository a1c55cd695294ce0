"""Row-wise running maximum (torch.cummax(x, dim=1).values).

x is (32, 600) fp32; the output is (32, 600) fp32. NaN propagates: once a row has seen a NaN,
every later output of that row is NaN (PyTorch's cummax semantics).
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cummax(x, dim=1).values


def get_inputs():
    return [torch.randn(32, 600, dtype=torch.float32)]


def get_init_inputs():
    return []
