"""Stable row sort: `torch.sort(x, dim=1, stable=True)`, values and indices.

x (R, N) fp32 on a 1/4 grid around per-row offsets, so every row holds many ties; a stable sort
keeps tied elements in their original order, which fixes the indices exactly. Returns the sorted
values (fp32) and the source indices (int64).
"""

import torch
import torch.nn as nn

R = 48
N = 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        values, indices = torch.sort(x, dim=1, stable=True)
        return values, indices


def get_inputs():
    offset = torch.randint(-40, 40, (R, 1)).float()
    x = torch.round(4.0 * torch.randn(R, N) * 3.0) / 4.0 + offset
    return [x]


def get_init_inputs():
    return []
