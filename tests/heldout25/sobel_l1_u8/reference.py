"""Sobel edge magnitude of 8-bit images (OpenCV-style edge map for a feature detector): with the
border replicated (BORDER_REPLICATE), gx = [-1 0 1; -2 0 2; -1 0 1] * img and gy = its transpose,
out = min(|gx| + |gy|, 255) as uint8 (the L1 magnitude, saturated). img (B, H, W) uint8 is the green
channel of an interleaved RGB buffer (a strided view); out (B, H, W) uint8.
"""

import torch
import torch.nn as nn

IMAGES = 3
HEIGHT = 45
WIDTH = 70


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, img):
        B, H, W = img.shape
        x = img.to(torch.int32)
        ri = torch.clamp(torch.arange(-1, H + 1, device=img.device), 0, H - 1)
        ci = torch.clamp(torch.arange(-1, W + 1, device=img.device), 0, W - 1)
        p = x[:, ri][:, :, ci]
        gx = (p[:, 0:H, 2:] + 2 * p[:, 1 : H + 1, 2:] + p[:, 2:, 2:]) - (
            p[:, 0:H, :W] + 2 * p[:, 1 : H + 1, :W] + p[:, 2:, :W]
        )
        gy = (p[:, 2:, 0:W] + 2 * p[:, 2:, 1 : W + 1] + p[:, 2:, 2:]) - (
            p[:, 0:H, 0:W] + 2 * p[:, 0:H, 1 : W + 1] + p[:, 0:H, 2:]
        )
        return torch.clamp(gx.abs() + gy.abs(), max=255).to(torch.uint8)


def get_inputs():
    rgb = torch.randint(0, 256, (IMAGES, HEIGHT, WIDTH, 3), dtype=torch.uint8)
    r = torch.arange(HEIGHT)[:, None]
    c = torch.arange(WIDTH)[None, :]
    rgb[1, :, :, 1] = ((3 * r + 2 * c) % 256).to(torch.uint8)  # a ramp: moderate gradients
    checker = ((r // 4 + c // 5) % 2 == 0).to(torch.uint8) * 255  # hard edges: the magnitude saturates
    rgb[2, :, :, 1] = checker
    rgb[2, :, WIDTH - 1, 1] = 0  # a dark last column against the replicated border
    rgb[2, HEIGHT - 1, :, 1] = 255  # a bright last row
    return [rgb[..., 1]]


def get_init_inputs():
    return []
