"""fp32 matmul, C = A @ B, 1024 x 1024 x 1024, positive inputs (no cancellation to hide behind)."""

import torch
import torch.nn as nn

M = N = K = 1024


class Model(nn.Module):
    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(M, K), torch.rand(K, N)]


def get_init_inputs():
    return []
