"""Porter-Duff "over" of a straight-alpha RGBA layer with a global layer opacity onto an RGB background, in
8-bit fixed point as image editors blend: a = (alpha OPACITY + 127) // 255, out = (fg a + bg (255 - a) + 127) // 255.
fg (B, H, W, 4) uint8 is interleaved RGBA; bg (B, 3, H, W) uint8 is a channel-first view of an interleaved
(B, H, W, 3) buffer (strides (3 H W, 1, 3 W, 3)); out (B, 3, H, W) uint8 (exact).
"""

import torch
import torch.nn as nn

BATCH = 2
HEIGHT = 45
WIDTH = 77


class Model(nn.Module):
    def __init__(self, opacity):
        super().__init__()
        self.opacity = opacity

    def forward(self, fg, bg):
        f = fg.to(torch.int32)
        a = (f[..., 3] * self.opacity + 127) // 255
        rgb = f[..., :3].permute(0, 3, 1, 2)
        out = (rgb * a[:, None] + bg.to(torch.int32) * (255 - a[:, None]) + 127) // 255
        return out.to(torch.uint8)


def get_inputs():
    fg = torch.randint(0, 256, (BATCH, HEIGHT, WIDTH, 4), dtype=torch.uint8)
    bg = torch.randint(0, 256, (BATCH, HEIGHT, WIDTH, 3), dtype=torch.uint8)
    fg[:, :8, :, 3] = 0  # transparent rows: the background shows
    fg[:, 8:16, :, 3] = 255  # opaque rows: the layer opacity alone
    fg[0, :, :20, :3] = 255  # white over ...
    bg[0, :, :20, :] = 0  # ... black
    fg[1, :, WIDTH - 10 :, :3] = 0  # black over ...
    bg[1, :, WIDTH - 10 :, :] = 255  # ... white in the last columns (the tail tile)
    fg[:, HEIGHT - 1, :, 3] = torch.arange(WIDTH, dtype=torch.uint8) * 3  # an alpha ramp in the last row
    return [fg, bg.permute(0, 3, 1, 2)]


def get_init_inputs():
    return [200]
