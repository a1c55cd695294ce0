"""RGB to grey conversion of interleaved (HWC) uint8 images with the BT.601 8-bit fixed-point weights.

img is (BATCH, HEIGHT, WIDTH, 3) uint8, channels R, G, B interleaved per pixel;
gray = (77 R + 150 G + 29 B + 128) >> 8 (weights 0.299, 0.587, 0.114 scaled by 256, rounded to
nearest by the + 128), computed in int32 (the weighted sum reaches 65,408), returned as
(BATCH, HEIGHT, WIDTH) uint8. Exact.
"""

import torch
import torch.nn as nn

BATCH = 3
HEIGHT = 97
WIDTH = 131


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        x = img.to(torch.int32)
        gray = (77 * x[..., 0] + 150 * x[..., 1] + 29 * x[..., 2] + 128) >> 8
        return gray.to(torch.uint8)


def get_inputs():
    img = torch.randint(0, 256, (BATCH, HEIGHT, WIDTH, 3), dtype=torch.uint8)
    return [img]


def get_init_inputs():
    return []
