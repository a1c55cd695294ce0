"""repeat_interleave over the channel dimension.

x is (4, 13, 150) bf16; every channel is repeated REPEATS = 3 times in place:
out = x.repeat_interleave(3, dim=1), shape (4, 39, 150), out[b, c, l] = x[b, c // 3, l].
"""

import torch
import torch.nn as nn

BATCH = 4
CHANNELS = 13
LENGTH = 150
REPEATS = 3


class Model(nn.Module):
    def __init__(self, repeats: int):
        super().__init__()
        self.repeats = repeats

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.repeat_interleave(self.repeats, dim=1)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, LENGTH, dtype=torch.bfloat16)]


def get_init_inputs():
    return [REPEATS]
