"""Square matrix multiplication: C = A @ B with A, B of shape (N, N), fp16 inputs and output.

N = 288 is a multiple of 32 (a typical BLOCK_K) but not of 64 (a typical BLOCK_M / BLOCK_N), so
a kernel's boundary handling along M and N is exercised. Inputs are standard normal (randn):
the dot products have mean zero, so partial sums along K are often much larger than the final
value, which is what makes accumulator precision matter.
"""

import torch
import torch.nn as nn

N = 288


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.randn(N, N, dtype=torch.float16)
    B = torch.randn(N, N, dtype=torch.float16)
    return [A, B]


def get_init_inputs():
    return []
