"""Lossless YCoCg-R colour transform (Malvar & Sullivan; the reversible transform of JPEG XR / lossless codecs):
Co = R - B, t = B + (Co >> 1), Cg = G - t, Y = t + (Cg >> 1) with arithmetic (floor) shifts, so Y stays in
0 .. 255 and Co, Cg in -255 .. 255. The images (B, H, W, 3) uint8 are a crop of an RGBX frame buffer
(B, H, W + 5, 4): pixel stride 4, row stride 4 (W + 5). Three planar outputs: Y (B, H, W) uint8, Co and Cg
(B, H, W) int16.
"""

import torch
import torch.nn as nn

BATCH = 3
HEIGHT = 37
WIDTH = 101


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, img):
        r = img[..., 0].to(torch.int32)
        g = img[..., 1].to(torch.int32)
        b = img[..., 2].to(torch.int32)
        co = r - b
        t = b + (co >> 1)
        cg = g - t
        y = t + (cg >> 1)
        return y.to(torch.uint8), co.to(torch.int16), cg.to(torch.int16)


def get_inputs():
    B, H, W = BATCH, HEIGHT, WIDTH
    buf = torch.randint(0, 256, (B, H, W + 5, 4), dtype=torch.uint8)
    buf[0, 0, :, :3] = torch.tensor([255, 0, 0], dtype=torch.uint8)  # pure red: Co = 255
    buf[0, 1, :, :3] = torch.tensor([0, 0, 255], dtype=torch.uint8)  # pure blue: Co = -255
    buf[0, 2, :, :3] = torch.tensor([0, 255, 0], dtype=torch.uint8)  # pure green: Cg = 255
    buf[0, 3, :, :3] = torch.tensor([255, 0, 255], dtype=torch.uint8)  # magenta: Cg = -255
    buf[1, :, :, :3] = torch.randint(0, 256, (H, W + 5, 1), dtype=torch.uint8)  # grey: Co = Cg = 0
    buf[2, H - 1, :, :3] = 255  # white last row
    buf[2, :, W - 1, :3] = 0  # black last column
    return [buf[:, :, :W, :3]]


def get_init_inputs():
    return []
