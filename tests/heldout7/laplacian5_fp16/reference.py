"""5-point Laplacian stencil with zero padding on each (H, W) plane.

x is (6, 50, 70) fp16; out has the same shape and dtype:
out[b, i, j] = x[b, i-1, j] + x[b, i+1, j] + x[b, i, j-1] + x[b, i, j+1] - 4 x[b, i, j],
where neighbours outside the plane count as 0.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 6
HEIGHT = 50
WIDTH = 70


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = F.pad(x, (1, 1, 1, 1))
        up = p[:, :-2, 1:-1]
        down = p[:, 2:, 1:-1]
        left = p[:, 1:-1, :-2]
        right = p[:, 1:-1, 2:]
        return up + down + left + right - 4.0 * x


def get_inputs():
    return [torch.randn(BATCH, HEIGHT, WIDTH, dtype=torch.float16)]


def get_init_inputs():
    return []
