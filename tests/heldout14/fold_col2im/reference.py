"""col2im: `F.fold(cols, output_size=(H, W), kernel_size=3, padding=1, stride=2)`, (H, W) from the constructor.

cols (B, C * 9, L) fp32 holds, for every channel c and tap (kh, kw) (row c * 9 + kh * 3 + kw),
one value per sliding-window position l = oh * OW + ow (OH = (H + 2 - 3) // 2 + 1 = 7,
OW = (W + 2 - 3) // 2 + 1 = 6, L = 42). Each value is added to output pixel
(oh * 2 - 1 + kh, ow * 2 - 1 + kw); taps that land in the padding are dropped. Output
(B, C, H, W) fp32 with H = 14, W = 12 (even sizes: the last row and column are covered by one
window only).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

B = 2
C = 5
H = 14
W = 12
KS = 3
PAD = 1
STRIDE = 2


class Model(nn.Module):
    def __init__(self, out_h: int, out_w: int):
        super().__init__()
        self.out_h = out_h
        self.out_w = out_w

    def forward(self, cols: torch.Tensor) -> torch.Tensor:
        return F.fold(cols, output_size=(self.out_h, self.out_w), kernel_size=KS, padding=PAD, stride=STRIDE)


def get_inputs():
    oh = (H + 2 * PAD - KS) // STRIDE + 1
    ow = (W + 2 * PAD - KS) // STRIDE + 1
    return [torch.randn(B, C * KS * KS, oh * ow)]


def get_init_inputs():
    return [H, W]
