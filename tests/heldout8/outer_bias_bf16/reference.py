"""Batched outer product plus a column bias, in bfloat16.

u is (3, 70), v is (3, 90), bias is (90,), all bf16:
out[b, i, j] = u[b, i] * v[b, j] + bias[j], a (3, 70, 90) bf16 tensor.
"""

import torch
import torch.nn as nn

BATCH = 3
M = 70
N = 90


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, u: torch.Tensor, v: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return u[:, :, None] * v[:, None, :] + bias


def get_inputs():
    u = torch.randn(BATCH, M, dtype=torch.bfloat16)
    v = torch.randn(BATCH, N, dtype=torch.bfloat16)
    bias = torch.randn(N, dtype=torch.bfloat16)
    return [u, v, bias]


def get_init_inputs():
    return []
