"""Softmax across the channels of an NCHW map, as torch.softmax(x, dim=1).

x is (3, 40, 17, 23) fp16 (per-pixel class scores, 40 classes, 391 pixels per plane); every
pixel's 40 channel values are normalised on their own. The output is (3, 40, 17, 23) fp16.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


def get_inputs():
    x = (2.0 * torch.randn(3, 40, 17, 23)).to(torch.float16)
    return [x]


def get_init_inputs():
    return []
