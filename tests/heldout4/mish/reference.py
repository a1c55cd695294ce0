"""Mish activation: x * tanh(softplus(x)) (torch.nn.functional.mish).

x is (257, 777) fp32 (199,689 elements, normals scaled by 4 so both the saturated and the
tiny-output regions are reached); the output has the same shape and dtype.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.mish(x)


def get_inputs():
    return [torch.randn(257, 777, dtype=torch.float32) * 4.0]


def get_init_inputs():
    return []
