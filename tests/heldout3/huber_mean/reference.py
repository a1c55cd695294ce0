"""Huber loss with delta 2, mean over every element, of bf16 inputs computed in fp32.

x and y are (50000,) bf16 (standard normal times 2, so both branches of the loss occur); the
output is an fp32 scalar (a mixed-precision training loss). Fifty thousand terms are summed:
intermediate sums kept in bf16 lose them.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

N = 50000


class Model(nn.Module):
    def __init__(self, delta: float):
        super().__init__()
        self.delta = delta

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return F.huber_loss(x.float(), y.float(), reduction="mean", delta=self.delta)


def get_inputs():
    x = (torch.randn(N) * 2).to(torch.bfloat16)
    y = (torch.randn(N) * 2).to(torch.bfloat16)
    return [x, y]


def get_init_inputs():
    return [2.0]
