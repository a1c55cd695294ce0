"""Joint intensity histogram of two images inside a region-of-interest mask (the first step of
mutual-information image registration): a, b (P, H, W) uint8, mask (P, H, W) bool; pixel values
fall in BINS (a constructor argument) equal-width bins, bin = value * BINS // 256; out (BINS, BINS)
int32 with out[i, j] the number of masked pixels (over all P image pairs) with a in bin i and b in
bin j.
"""

import torch
import torch.nn as nn

PAIRS = 3
HEIGHT = 40
WIDTH = 57
BINS = 24


class Model(nn.Module):
    def __init__(self, bins):
        super().__init__()
        self.bins = bins

    def forward(self, a, b, mask):
        n = self.bins
        ia = a.to(torch.int64) * n // 256
        ib = b.to(torch.int64) * n // 256
        flat = (ia * n + ib)[mask]
        return torch.bincount(flat, minlength=n * n).view(n, n).to(torch.int32)


def get_inputs():
    a = torch.randint(0, 256, (PAIRS, HEIGHT, WIDTH), dtype=torch.int32)
    b = (a + torch.randint(-20, 21, a.shape)).clamp(0, 255)  # b correlated with a (mostly diagonal)
    a[1] = torch.arange(HEIGHT * WIDTH).view(HEIGHT, WIDTH) % 256  # every value, 0 and 255 included
    b[1] = 255 - a[1]  # the anti-diagonal
    a[2, : HEIGHT // 2] = 255  # saturated: the last bin
    b[2, : HEIGHT // 2] = 0
    b[2, HEIGHT // 2 :, : WIDTH // 2] = 255
    yy = torch.arange(HEIGHT).view(-1, 1) - HEIGHT / 2
    xx = torch.arange(WIDTH).view(1, -1) - WIDTH / 2
    mask = (yy / HEIGHT) ** 2 + (xx / WIDTH) ** 2 < 0.2  # an elliptic field of view
    mask = mask.expand(PAIRS, HEIGHT, WIDTH).clone()
    mask[0] |= torch.rand(HEIGHT, WIDTH) < 0.3
    mask[1, :, -1] = True  # the last column (tail of a row block)
    mask[2] = True
    return [a.to(torch.uint8), b.to(torch.uint8), mask]


def get_init_inputs():
    return [BINS]
