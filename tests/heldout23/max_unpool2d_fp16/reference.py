"""Max unpooling (`F.max_unpool2d`, kernel 2, stride 2): the pooled values are scattered back to
the positions their max-pool indices name, zeros everywhere else (SegNet-style decoders).

vals (B, C, PH, PW) fp16 and idx (B, C, PH, PW) int64 flat positions h W + w inside each
(H, W) plane, as `F.max_pool2d(..., return_indices=True)` gives them -> out (B, C, H, W) fp16 with
H, W odd (the last row / column of the output was never pooled and stays 0).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 6
HEIGHT = 37
WIDTH = 45


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, vals, idx):
        H = 2 * vals.shape[2] + 1
        W = 2 * vals.shape[3] + 1
        return F.max_unpool2d(vals, idx, kernel_size=2, stride=2, output_size=(H, W))


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, HEIGHT | 1, WIDTH | 1)
    x[0, 1] = -x[0, 1].abs() - 0.5  # all-negative plane: the maxima are negative
    x[1, 2, :8] += 5.0  # a bright band
    x[1, 3] = torch.arange(x.shape[3], dtype=torch.float32)[None, :]  # ramp: every max on an odd column
    vals, idx = F.max_pool2d(x, 2, stride=2, return_indices=True)
    return [vals.half(), idx]


def get_init_inputs():
    return []
