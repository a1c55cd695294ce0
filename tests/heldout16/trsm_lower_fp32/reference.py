"""Batched lower-triangular solve, `torch.linalg.solve_triangular(L, B, upper=False)`.

L (BATCH, N, N) fp32 holds the factor in its lower triangle (diagonal in [1, 2], off-diagonal
entries ~0.3 / sqrt(N)); its strict upper triangle holds unrelated large values (a packed LU
factor), which the solve must not read. B (BATCH, N, K) right-hand sides. Returns X with L X = B.
"""

import torch
import torch.nn as nn

BATCH = 3
N = 45
K = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, Lm: torch.Tensor, Bm: torch.Tensor) -> torch.Tensor:
        return torch.linalg.solve_triangular(Lm, Bm, upper=False)


def get_inputs():
    low = torch.tril(0.3 / N**0.5 * torch.randn(BATCH, N, N), diagonal=-1)
    diag = torch.diag_embed(torch.empty(BATCH, N).uniform_(1.0, 2.0))
    upper = torch.triu(5.0 * torch.randn(BATCH, N, N), diagonal=1)
    Lm = low + diag + upper
    Bm = torch.randn(BATCH, N, K)
    return [Lm, Bm]


def get_init_inputs():
    return []
