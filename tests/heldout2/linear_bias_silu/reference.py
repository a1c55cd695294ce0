"""Linear layer with a fused bias + SiLU epilogue: y = silu(x @ W^T + b), fp16.

x: (100, 600), W: (72, 600) as nn.Linear stores it, b: (72,). None of M=100, N=72, K=600 is a
multiple of the 32 / 32 / 64 tiles a kernel would use.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

M, N, K = 100, 72, 600


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features).to(torch.float16)

    def forward(self, x: torch.Tensor):
        return F.silu(self.linear(x))


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, N]
