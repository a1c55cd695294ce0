"""Causal (lower-triangular) batched matrix-vector product: y[b, i] = sum_{j <= i} A[b, i, j] v[b, j].

A is (3, 300, 300) fp16, v is (3, 300) fp16; only the lower triangle of A, diagonal included,
takes part. The output is (3, 300) in at least fp32 (float64 for the golden).
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        dt = torch.promote_types(A.dtype, torch.float32)
        return torch.matmul(torch.tril(A.to(dt)), v.to(dt).unsqueeze(-1)).squeeze(-1)


def get_inputs():
    A = torch.randn(3, 300, 300, dtype=torch.float16)
    v = torch.randn(3, 300, dtype=torch.float16)
    return [A, v]


def get_init_inputs():
    return []
