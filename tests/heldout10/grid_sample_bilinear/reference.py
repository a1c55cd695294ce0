"""Bilinear F.grid_sample with zero padding and align_corners=False, fp32.

x is (BATCH, CHANNELS, IN_H, IN_W) fp32; grid is (BATCH, OUT_H, OUT_W, 2) fp32 normalised sample
positions in [-1.1, 1.1] (grid[..., 0] is x, along the width; grid[..., 1] is y, along the height),
so some samples fall partly or wholly outside the image. With align_corners=False the pixel
coordinate is ((g + 1) * size - 1) / 2; each output is the bilinear blend of the four
neighbouring pixels, those outside the image counting as 0.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 3
IN_H = 17
IN_W = 23
OUT_H = 11
OUT_W = 13


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, IN_H, IN_W, dtype=torch.float32)
    grid = 2.2 * torch.rand(BATCH, OUT_H, OUT_W, 2, dtype=torch.float32) - 1.1
    return [x, grid]


def get_init_inputs():
    return []
