"""Gated linear unit over the last dimension: out = a * sigmoid(g), (a, g) = x.chunk(2, dim=-1).

x is (300, 514) bf16; the output is (300, 257) bf16 (torch.nn.functional.glu(x, dim=-1)).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.glu(x, dim=-1)


def get_inputs():
    return [torch.randn(300, 514, dtype=torch.bfloat16) * 3.0]


def get_init_inputs():
    return []
