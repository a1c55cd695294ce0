"""fp32 matmul with a long reduction, C = A @ B, 128 x 16384 x 128: the shape split-K is for."""

import torch
import torch.nn as nn

M = N = 128
K = 16384


class Model(nn.Module):
    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(M, K), torch.rand(K, N)]


def get_init_inputs():
    return []
