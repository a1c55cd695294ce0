"""Weighted sum over the channel dimension, einsum('bcl,c->bl'), in fp16.

x is (4, 300, 150) fp16 and w is (300,) fp16; out[b, l] = sum_c x[b, c, l] * w[c], a (4, 150)
fp16 tensor.
"""

import torch
import torch.nn as nn

BATCH = 4
CHANNELS = 300
LENGTH = 150


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bcl,c->bl", x, w)


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, LENGTH, dtype=torch.float16)
    w = torch.randn(CHANNELS, dtype=torch.float16)
    return [x, w]


def get_init_inputs():
    return []
