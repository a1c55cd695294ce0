"""Nearest-neighbour resize of an NCHW bf16 image batch to a fixed size, F.interpolate(mode="nearest").

x is (BATCH, CHANNELS, IN_H, IN_W) bf16; out[b, c, oh, ow] = x[b, c, floor(oh * IN_H / OUT_H),
floor(ow * IN_W / OUT_W)]: the height is enlarged (23 -> 37) and the width reduced (31 -> 19).
An exact copy (no arithmetic on the values).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 6
IN_H = 23
IN_W = 31
OUT_H = 37
OUT_W = 19


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=(OUT_H, OUT_W), mode="nearest")


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, IN_H, IN_W, dtype=torch.bfloat16)
    return [x]


def get_init_inputs():
    return []
