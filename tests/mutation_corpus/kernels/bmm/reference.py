"""Batched matmul, fp32: (3, 50, 70) @ (3, 70, 40)."""

import torch
import torch.nn as nn

BATCH, M, K, N = 3, 50, 70, 40


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return []
