"""NV12 (4:2:0, interleaved UV plane) to packed RGB, BT.601 limited range in integer arithmetic
(the fixed-point formulas of libyuv / the Microsoft YUV note; a video decoder's output stage).

y (F, H, W) uint8 luma, uv (F, ceil(H / 2), ceil(W / 2), 2) uint8 chroma (U then V), one chroma
sample per 2 x 2 luma block (odd H or W: the last row / column shares the last chroma sample).
C = Y - 16, D = U - 128, E = V - 128 and
R = clamp((298 C + 409 E + 128) >> 8), G = clamp((298 C - 100 D - 208 E + 128) >> 8),
B = clamp((298 C + 516 D + 128) >> 8) to [0, 255] (arithmetic shifts); out (F, H, W, 3) uint8.
"""

import torch
import torch.nn as nn

FRAMES = 3
HEIGHT = 45
WIDTH = 70


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, y, uv):
        H, W = y.shape[1], y.shape[2]
        c = y.to(torch.int32) - 16
        uv_full = uv.to(torch.int32).repeat_interleave(2, dim=1).repeat_interleave(2, dim=2)[:, :H, :W]
        d = uv_full[..., 0] - 128
        e = uv_full[..., 1] - 128
        r = (298 * c + 409 * e + 128) >> 8
        g = (298 * c - 100 * d - 208 * e + 128) >> 8
        b = (298 * c + 516 * d + 128) >> 8
        return torch.stack([r, g, b], dim=-1).clamp(0, 255).to(torch.uint8)


def get_inputs():
    hc, wc = (HEIGHT + 1) // 2, (WIDTH + 1) // 2
    y = torch.randint(0, 256, (FRAMES, HEIGHT, WIDTH), dtype=torch.int32)
    uv = torch.randint(0, 256, (FRAMES, hc, wc, 2), dtype=torch.int32)
    # frame 1: a natural-looking gradient with limited-range luma and mild chroma
    rows = torch.arange(HEIGHT).view(-1, 1)
    cols = torch.arange(WIDTH).view(1, -1)
    y[1] = 16 + (rows * 219 // max(HEIGHT - 1, 1) + cols) % 220
    uv[1, ..., 0] = 128 + (torch.arange(wc).view(1, -1) % 40) - 20
    uv[1, ..., 1] = 128 - (torch.arange(hc).view(-1, 1) % 30) + 15
    # frame 2: extremes: black / white / full-range chroma corners, saturating every channel
    y[2, : HEIGHT // 3] = 0
    y[2, HEIGHT // 3 : 2 * HEIGHT // 3] = 255
    uv[2, :, : wc // 4] = 0
    uv[2, :, wc // 4 : wc // 2] = 255
    uv[2, :, wc // 2 : 3 * wc // 4, 0] = 0
    uv[2, :, wc // 2 : 3 * wc // 4, 1] = 255
    uv[2, -1, :, :] = 128  # last chroma row (shared by the odd last luma row): neutral grey
    uv[2, :, -1, 0] = 255  # last chroma column: strong blue
    return [y.to(torch.uint8), uv.to(torch.uint8)]


def get_init_inputs():
    return []
