"""2-D circular shift (torch.roll) over the last two dimensions.

x is (5, 45, 77) fp32; the rows are rolled by SHIFT_H = 7 and the columns by SHIFT_W = -12
(a negative shift moves elements towards lower indices):
out[b, i, j] = x[b, (i - SHIFT_H) mod H, (j - SHIFT_W) mod W].
"""

import torch
import torch.nn as nn

BATCH = 5
HEIGHT = 45
WIDTH = 77
SHIFT_H = 7
SHIFT_W = -12


class Model(nn.Module):
    def __init__(self, shift_h: int, shift_w: int):
        super().__init__()
        self.shift_h = shift_h
        self.shift_w = shift_w

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.roll(x, shifts=(self.shift_h, self.shift_w), dims=(1, 2))


def get_inputs():
    return [torch.randn(BATCH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [SHIFT_H, SHIFT_W]
