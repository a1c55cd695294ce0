"""Detection box decoding (torchvision BoxCoder.decode_single, weights (10, 10, 5, 5), bbox_xform_clip =
log(1000 / 16)) followed by clip_boxes_to_image: anchors (N, 4) fp32 (x1, y1, x2, y2) are columns 1 .. 4 of an
(N, 5) (score, box) buffer; the regression deltas (N, 4) fp16 are columns 4 .. 7 of an (N, 8) two-class head output
(the object class), widened to fp32; out (N, 4) fp32 clipped to [0, W] x [0, H] (the image size from the
constructor).
"""

import math

import torch
import torch.nn as nn

ANCHORS = 5000
CLIP = math.log(1000.0 / 16)


class Model(nn.Module):
    def __init__(self, img_h, img_w):
        super().__init__()
        self.img_h = img_h
        self.img_w = img_w

    def forward(self, anchors, deltas):
        ft = torch.promote_types(anchors.dtype, torch.float32)
        a = anchors.to(ft)
        d = deltas.to(ft)
        w = a[:, 2] - a[:, 0]
        h = a[:, 3] - a[:, 1]
        cx = a[:, 0] + 0.5 * w
        cy = a[:, 1] + 0.5 * h
        dw = torch.clamp(d[:, 2] / 5.0, max=CLIP)
        dh = torch.clamp(d[:, 3] / 5.0, max=CLIP)
        pcx = d[:, 0] / 10.0 * w + cx
        pcy = d[:, 1] / 10.0 * h + cy
        pw = torch.exp(dw) * w
        ph = torch.exp(dh) * h
        x1 = (pcx - 0.5 * pw).clamp(0, self.img_w)
        y1 = (pcy - 0.5 * ph).clamp(0, self.img_h)
        x2 = (pcx + 0.5 * pw).clamp(0, self.img_w)
        y2 = (pcy + 0.5 * ph).clamp(0, self.img_h)
        return torch.stack([x1, y1, x2, y2], dim=1)


def get_inputs():
    N = ANCHORS
    ctr = torch.rand(N, 2) * torch.tensor([800.0, 600.0])
    size = 2.0 ** (4 + 4 * torch.rand(N, 1)) * torch.tensor([[1.0, 0.5]]) ** torch.randint(-1, 2, (N, 1))
    boxes = torch.cat([ctr - 0.5 * size, ctr + 0.5 * size], dim=1)
    buf = torch.cat([torch.rand(N, 1), boxes], dim=1)
    head = torch.randn(N, 8) * torch.tensor([1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 0.5, 0.5]) * 3.0
    head[: N // 10, 6:8] = 30.0  # width / height deltas past the clip (exp(6) > 1000 / 16)
    head[N // 10 : N // 5, 6:8] = -40.0  # collapsing boxes
    buf[N // 5 : N // 5 + 50, 3:5] = buf[N // 5 : N // 5 + 50, 1:3]  # zero-size anchors
    buf[N - 20 :, 1:3] = torch.tensor([780.0, 590.0])  # anchors over the bottom-right corner (the tail block)
    buf[N - 20 :, 3:5] = torch.tensor([900.0, 700.0])
    return [buf[:, 1:], head.to(torch.float16)[:, 4:]]


def get_init_inputs():
    return [600, 800]
