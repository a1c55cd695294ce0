"""Reflection padding of the last two dims: F.pad(x, (3, 2, 4, 1), mode="reflect").

x is (BATCH, CHANNELS, HEIGHT, WIDTH) fp32; PADDING follows F.pad's order (left, right, top,
bottom). Reflection mirrors about the edge pixel without repeating it: padded row -1 copies row 1,
row HEIGHT copies row HEIGHT - 2 (likewise for columns). Output (BATCH, CHANNELS, HEIGHT + 5,
WIDTH + 5), an exact copy.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 3
CHANNELS = 4
HEIGHT = 21
WIDTH = 26
PADDING = (3, 2, 4, 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, PADDING, mode="reflect")


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)
    return [x]


def get_init_inputs():
    return []
