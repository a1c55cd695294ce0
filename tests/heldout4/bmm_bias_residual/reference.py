"""Batched projection with bias and residual: out = x @ w + bias + res.

x is (4, 70, 96) fp32, w is (96, 80) fp32 (shared across the batch), bias is (80,) fp32,
res is (4, 70, 80) fp32; the output is (4, 70, 80) fp32.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor, res: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, w) + bias + res


def get_inputs():
    x = torch.randn(4, 70, 96, dtype=torch.float32)
    w = torch.randn(96, 80, dtype=torch.float32) * 0.1
    bias = torch.randn(80, dtype=torch.float32)
    res = torch.randn(4, 70, 80, dtype=torch.float32)
    return [x, w, bias, res]


def get_init_inputs():
    return []
