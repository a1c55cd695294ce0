"""relu(x @ w + bias), fp32: x (70, 130), w (130, 90), bias (90,)."""

import torch
import torch.nn as nn

M, K, N = 70, 130, 90


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.matmul(x, w) + bias)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N) / K**0.5, torch.randn(N)]


def get_init_inputs():
    return []
