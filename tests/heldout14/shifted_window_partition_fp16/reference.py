"""Swin Transformer shifted-window partition: cyclic shift, then non-overlapping windows.

x (B, H, W, C) fp16 (channels last). The feature map is rolled by (-SHIFT, -SHIFT) over (H, W)
(pixel (h, w) of the result is x[(h + SHIFT) % H, (w + SHIFT) % W]) and cut into WS x WS windows,
ordered by batch, then window row, then window column: output (B * (H / WS) * (W / WS), WS, WS, C),
an exact copy. H and W are multiples of WS.
"""

import torch
import torch.nn as nn

B = 2
H = 14
W = 21
C = 40
WS = 7
SHIFT = 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        xs = torch.roll(x, shifts=(-SHIFT, -SHIFT), dims=(1, 2))
        xs = xs.view(b, h // WS, WS, w // WS, WS, c).permute(0, 1, 3, 2, 4, 5)
        return xs.reshape(-1, WS, WS, c)


def get_inputs():
    return [torch.randn(B, H, W, C).half()]


def get_init_inputs():
    return []
