"""Pixel shuffle (depth-to-space) with upscale factor 2, as torch.nn.functional.pixel_shuffle.

x is (4, 32, 15, 13) fp16; the output is (4, 8, 30, 26) fp16 with
out[n, c, 2 h + i, 2 w + j] = x[n, 4 c + 2 i + j, h, w]. Pure data movement: the result is exact.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, upscale: int = 2):
        super().__init__()
        self.upscale = upscale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pixel_shuffle(x, self.upscale)


def get_inputs():
    return [torch.randn(4, 32, 15, 13, dtype=torch.float16)]


def get_init_inputs():
    return [2]
