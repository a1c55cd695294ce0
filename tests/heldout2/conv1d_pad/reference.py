"""1-D convolution with zero padding ("same" length), fp32: nn.Conv1d(8, 16, kernel_size=5, padding=2).

x: (4, 8, 333); 333 is not a multiple of the 128-wide length block, and the padding makes the
first and last two positions of every row read outside the signal.
"""

import torch
import torch.nn as nn

B, C_IN, C_OUT, L, KSIZE, PAD = 4, 8, 16, 333, 5, 2


class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int, ksize: int, pad: int):
        super().__init__()
        self.conv = nn.Conv1d(c_in, c_out, ksize, padding=pad)

    def forward(self, x: torch.Tensor):
        return self.conv(x)


def get_inputs():
    return [torch.randn(B, C_IN, L)]


def get_init_inputs():
    return [C_IN, C_OUT, KSIZE, PAD]
