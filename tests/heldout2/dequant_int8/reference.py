"""Asymmetric int8 weight dequantisation to fp16: w = (q - zero_point[row]) * scale[row].

q: (300, 700) int8, zero_point: (300,) int8 in [-20, 20], scale: (300,) fp16. Neither 300 nor 700
is a multiple of the 16 x 128 tiles. q - zero_point ranges over [-148, 147]: it does not fit in int8.
"""

import torch
import torch.nn as nn

ROWS, COLS = 300, 700


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, zero_point: torch.Tensor, scale: torch.Tensor):
        centred = q.to(torch.int32) - zero_point.to(torch.int32)[:, None]
        return centred.to(scale.dtype) * scale[:, None]


def get_inputs():
    q = torch.randint(-128, 128, (ROWS, COLS), dtype=torch.int8)
    zero_point = torch.randint(-20, 21, (ROWS,), dtype=torch.int8)
    scale = (0.002 + 0.01 * torch.rand(ROWS)).to(torch.float16)
    return [q, zero_point, scale]


def get_init_inputs():
    return []
