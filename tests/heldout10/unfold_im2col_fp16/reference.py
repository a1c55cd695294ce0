"""F.unfold (im2col) of an NCHW fp16 tensor: kernel 3 x 3, padding 1, stride 2, dilation 1.

x is (BATCH, CHANNELS, HEIGHT, WIDTH) fp16. The output is (BATCH, CHANNELS * 9, L) with
L = OUT_H * OUT_W, OUT_H = (HEIGHT + 2 - 3) // 2 + 1 = 12, OUT_W = (WIDTH + 2 - 3) // 2 + 1 = 10;
row c * 9 + kh * 3 + kw, column oh * OUT_W + ow holds x[:, c, 2 oh - 1 + kh, 2 ow - 1 + kw], 0 in
the padding. A pure copy (exact).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 5
HEIGHT = 23
WIDTH = 19
KERNEL = 3
PADDING = 1
STRIDE = 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.unfold(x, kernel_size=KERNEL, padding=PADDING, stride=STRIDE)


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return []
