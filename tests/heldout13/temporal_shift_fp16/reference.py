"""Temporal Shift Module (TSM, Lin et al. 2019), the zero-padded shift of a clip's frames.

x is (CLIPS * SEGMENTS, CHANNELS, HEIGHT, WIDTH) fp16, frames of a clip consecutive. With
fold = CHANNELS // FOLD_DIV: channels [0, fold) take the next frame's values (frame t reads t + 1,
the clip's last frame gets 0), channels [fold, 2 fold) take the previous frame's (t reads t - 1,
the first frame gets 0), the other channels are unchanged. Frames never read across clips.
Output the same shape, an exact copy or 0.
"""

import torch
import torch.nn as nn

CLIPS = 2
SEGMENTS = 8
CHANNELS = 28
HEIGHT = 9
WIDTH = 11
FOLD_DIV = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        nt, c, h, w = x.shape
        x = x.view(nt // SEGMENTS, SEGMENTS, c, h, w)
        fold = c // FOLD_DIV
        out = torch.zeros_like(x)
        out[:, :-1, :fold] = x[:, 1:, :fold]
        out[:, 1:, fold : 2 * fold] = x[:, :-1, fold : 2 * fold]
        out[:, :, 2 * fold :] = x[:, :, 2 * fold :]
        return out.view(nt, c, h, w)


def get_inputs():
    x = torch.randn(CLIPS * SEGMENTS, CHANNELS, HEIGHT, WIDTH, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return []
