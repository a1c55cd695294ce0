"""JPEG forward transform: level shift, orthonormal 8 x 8 2-D DCT-II of every block of a grayscale
image and division by the quantisation table (the encoder stage before rounding).

img (B, 8 HB, 8 WB) uint8, qtable (8, 8) fp32 (positive steps). Each 8 x 8 block f(x, y) (x the
row, y the column inside the block) becomes F(u, v) / Q(u, v) with F(u, v) = a(u) a(v) sum_x sum_y
(f(x, y) - 128) cos((2 x + 1) u pi / 16) cos((2 y + 1) v pi / 16), a(0) = sqrt(1 / 8),
a(k > 0) = sqrt(2 / 8), stored in place of the block; out (B, 8 HB, 8 WB) in qtable's dtype.
"""

import math

import torch
import torch.nn as nn

IMAGES = 2
HB = 6
WB = 11

# the JPEG standard's luminance table (Annex K), quality 50
LUMA_Q50 = [
    [16, 11, 10, 16, 24, 40, 51, 61],
    [12, 12, 14, 19, 26, 58, 60, 55],
    [14, 13, 16, 24, 40, 57, 69, 56],
    [14, 17, 22, 29, 51, 87, 80, 62],
    [18, 22, 37, 56, 68, 109, 103, 77],
    [24, 35, 55, 64, 81, 104, 113, 92],
    [49, 64, 78, 87, 103, 121, 120, 101],
    [72, 92, 95, 98, 112, 100, 103, 99],
]


def _dct_matrix(dtype, device):
    k = torch.arange(8, dtype=torch.float64, device=device)
    c = torch.cos((2 * k[None, :] + 1) * k[:, None] * math.pi / 16) * math.sqrt(2 / 8)
    c[0] = math.sqrt(1 / 8)
    return c.to(dtype)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, img, qtable):
        B, H, W = img.shape
        f = img.to(qtable.dtype) - 128.0
        blocks = f.view(B, H // 8, 8, W // 8, 8).permute(0, 1, 3, 2, 4)
        c = _dct_matrix(qtable.dtype, img.device)
        coef = (c @ blocks @ c.T) / qtable
        return coef.permute(0, 1, 3, 2, 4).reshape(B, H, W)


def get_inputs():
    H, W = 8 * HB, 8 * WB
    img = torch.randint(0, 256, (IMAGES, H, W), dtype=torch.int32)
    rows = torch.arange(H).view(-1, 1)
    cols = torch.arange(W).view(1, -1)
    img[1] = (rows * 5 + cols * 3) % 256  # smooth ramps (energy in the low frequencies)
    img[1, :8, :8] = 255  # flat white block: DC only, (255 - 128) * 8
    img[1, :8, 8:16] = 0  # flat black block
    img[1, 8:16, :8] = 255 * ((rows[8:16] + cols[:, :8]) % 2)  # checkerboard: F(7, 7) dominant
    img[1, 8:16, 8:16] = 200 * (cols[:, 8:16] % 2)  # vertical stripes: row u = 0 only
    img[1, -8:, -8:] = 128  # the last block: exactly zero after the level shift
    q = torch.tensor(LUMA_Q50, dtype=torch.float32)
    q[0, 0] = 1.0  # a fine DC step, as at high quality
    q[7, 7] = 255.0
    return [img.to(torch.uint8), q]


def get_init_inputs():
    return []
