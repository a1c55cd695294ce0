"""Matmul with a small output and a long reduction: C = A @ B, A (64, K), B (K, 64), K = 65536.

Inputs are fp16 (torch.rand, as in KernelBench's large-K task); the product is returned in
fp32 (at least fp32: the golden run, with float64 inputs, stays in float64), so the output's
own rounding does not hide how precisely the 65536-term dot products were accumulated.
"""

import torch
import torch.nn as nn

M = 64
N = 64
K = 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        dtype = torch.promote_types(A.dtype, torch.float32)  # fp16 -> fp32, float64 stays
        return torch.matmul(A.to(dtype), B.to(dtype))


def get_inputs():
    A = torch.rand(M, K, dtype=torch.float16)
    B = torch.rand(K, N, dtype=torch.float16)
    return [A, B]


def get_init_inputs():
    return []
