"""Exact (erf) GELU, as torch.nn.functional.gelu(x, approximate="none").

x is (300, 555) fp32 (166,500 elements) with x ~ N(0, 3^2), so many inputs lie in the far negative
tail where GELU(x) = x Phi(x) is tiny; the output is (300, 555) fp32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate="none")


def get_inputs():
    return [torch.randn(300, 555) * 3.0]


def get_init_inputs():
    return []
