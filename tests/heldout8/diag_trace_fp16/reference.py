"""Trace of each matrix of a batch of non-square fp16 matrices, summed in fp32.

x is (6, 150, 130) fp16; out[b] = sum_i x[b, i, i] for i < min(150, 130) = 130, an fp32 (6,)
tensor.
"""

import torch
import torch.nn as nn

BATCH = 6
M = 150
N = 130


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.diagonal(x, dim1=1, dim2=2).float().sum(dim=-1)


def get_inputs():
    return [torch.randn(BATCH, M, N, dtype=torch.float16)]


def get_init_inputs():
    return []
