"""C = A @ B with fp16 A (96, 200) and B (200, 96); the result is fp16."""

import torch
import torch.nn as nn

M, K, N = 96, 200, 96


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16), torch.randn(K, N, dtype=torch.float16)]


def get_init_inputs():
    return []
