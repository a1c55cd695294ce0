"""Squared multi-class hinge loss per sample, as F.multi_margin_loss(p=2, margin=1, reduction='none').

x is (300, 150) fp32 class scores, target is (300,) int64 in [0, 150). For sample i with
target y: loss[i] = sum over j != y of max(0, 1 - x[i, y] + x[i, j])^2, divided by the number of
classes (150). The output is (300,) fp32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.multi_margin_loss(x, target, p=2, margin=1.0, reduction="none")


def get_inputs():
    x = torch.randn(300, 150)
    target = torch.randint(0, 150, (300,), dtype=torch.int64)
    return [x, target]


def get_init_inputs():
    return []
