"""Triton greedy NMS as two kernels, the way GPU NMS splits it: a parallel overlap matrix, then a
serial sweep.

Kernel 1, grid (i tiles, j tiles, image) of 64 x 64 box pairs (N = 100: tail 36): box n of image b
(x1, y1, x2, y2) at 4 (b N + n); IoU = inter / (area_i + area_j - inter) with the intersection
sides clamped at 0; over[b, i, j] = 1 where j < i (box j scores higher) and IoU > threshold, else
0, stored as int8 into a (B, N, N) workspace.

Kernel 2, one program per tile of BLOCK_B = 4 images (B = 3: tail 1) x the N boxes in
BLOCK_N = 128 lanes (tail 28): the keep flags (an int32 tile) are swept in score order; step i
loads row i of each image's overlap matrix (at (b N + i) N: a row pointer advanced by N each
step) and box i is suppressed when a box that is still kept has a 1 in that row. out (B, N) int32.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def overlap_kernel(boxes_ptr, over_ptr, N, thr, BLOCK: tl.constexpr):
    oi = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    oj = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    b = tl.program_id(2)
    mi = oi < N
    mj = oj < N
    bi = boxes_ptr + (b * N + oi) * 4
    bj = boxes_ptr + (b * N + oj) * 4
    x1i = tl.load(bi, mask=mi, other=0.0)[:, None]
    y1i = tl.load(bi + 1, mask=mi, other=0.0)[:, None]
    x2i = tl.load(bi + 2, mask=mi, other=1.0)[:, None]
    y2i = tl.load(bi + 3, mask=mi, other=1.0)[:, None]
    x1j = tl.load(bj, mask=mj, other=0.0)[None, :]
    y1j = tl.load(bj + 1, mask=mj, other=0.0)[None, :]
    x2j = tl.load(bj + 2, mask=mj, other=1.0)[None, :]
    y2j = tl.load(bj + 3, mask=mj, other=1.0)[None, :]
    iw = tl.maximum(tl.minimum(x2i, x2j) - tl.maximum(x1i, x1j), 0.0)
    ih = tl.maximum(tl.minimum(y2i, y2j) - tl.maximum(y1i, y1j), 0.0)
    inter = iw * ih
    union = (x2i - x1i) * (y2i - y1i) + (x2j - x1j) * (y2j - y1j)
    earlier = oj[None, :] < oi[:, None]
    over = ((inter / union > thr) & earlier).to(tl.int8)
    tl.store(over_ptr + (b * N + oi[:, None]) * N + oj[None, :], over, mask=mi[:, None] & mj[None, :])


@triton.jit
def sweep_kernel(over_ptr, keep_ptr, B, N, BLOCK_B: tl.constexpr, BLOCK_N: tl.constexpr):
    imgs = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    idx = tl.arange(0, BLOCK_N)
    m = (imgs[:, None] < B) & (idx[None, :] < N)
    keep = tl.zeros([BLOCK_B, BLOCK_N], dtype=tl.int32)
    row_ptr = over_ptr + imgs[:, None] * N * N + idx[None, :]
    for i in range(0, N):
        row = tl.load(row_ptr, mask=m, other=0)
        suppressed = tl.max(keep * row, axis=1)
        keep = tl.where(idx[None, :] == i, (suppressed == 0).to(tl.int32)[:, None], keep)
        row_ptr += N
    tl.store(keep_ptr + imgs[:, None] * N + idx[None, :], keep, mask=m)


class ModelNew(nn.Module):
    def __init__(self, iou_threshold):
        super().__init__()
        self.iou_threshold = iou_threshold

    def forward(self, boxes):
        boxes = boxes.contiguous()
        B, N, _ = boxes.shape
        over = torch.empty((B, N, N), dtype=torch.int8, device=boxes.device)
        keep = torch.empty((B, N), dtype=torch.int32, device=boxes.device)
        BLOCK = 64
        grid = (triton.cdiv(N, BLOCK), triton.cdiv(N, BLOCK), B)
        overlap_kernel[grid](boxes, over, N, self.iou_threshold, BLOCK=BLOCK)
        BLOCK_B = 4
        sweep_kernel[(triton.cdiv(B, BLOCK_B),)](over, keep, B, N, BLOCK_B=BLOCK_B, BLOCK_N=triton.next_power_of_2(N))
        return keep
