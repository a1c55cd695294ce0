"""Bilinear resize of NCHW images to a fixed size, align_corners=False, as torch.nn.functional.interpolate.

x is (2, 6, 23, 29) fp32; the output is (2, 6, 40, 50) fp32 (non-integer scale factors 40/23 and
50/29). Source coordinates are (dst + 0.5) * in / out - 0.5, clamped below at 0, and the right /
bottom neighbour is clamped to the last row / column.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, out_h: int = 40, out_w: int = 50):
        super().__init__()
        self.out_h = out_h
        self.out_w = out_w

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=(self.out_h, self.out_w), mode="bilinear", align_corners=False)


def get_inputs():
    return [torch.randn(2, 6, 23, 29)]


def get_init_inputs():
    return [40, 50]
