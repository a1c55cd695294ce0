"""ECA-Net efficient channel attention: y = mean of every (H, W) plane, z = conv1d of y along the channels
(3 taps w, zero padding 1, cross-correlation like torch), out = x sigmoid(z) broadcast over the plane.

x (B, C, H, W) fp16, w (3,) fp32; out (B, C, H, W) fp16, statistics and gate in fp32, one rounding.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 20
HEIGHT = 23
WIDTH = 29


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        y = xf.mean(dim=(2, 3))
        z = F.conv1d(y[:, None, :], w.to(xf.dtype).view(1, 1, -1), padding=1)[:, 0]
        g = torch.sigmoid(z)
        return (xf * g[:, :, None, None]).to(x.dtype)


def get_inputs():
    offset = torch.linspace(-3.0, 3.0, CHANNELS)[torch.randperm(CHANNELS)]
    x = torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) + offset[None, :, None, None]
    x[1] = x[1] * 0.5 - 0.5
    w = torch.tensor([1.0, -2.0, 1.5]) + 0.2 * torch.randn(3)
    return [x.half(), w]


def get_init_inputs():
    return []
