"""Greedy non-maximum suppression of detection boxes (torchvision.ops.nms semantics, returned as a
keep mask per image instead of a list of indices).

boxes (B, N, 4) fp32 (x1, y1, x2, y2), already sorted by descending score within each image; box i
is kept unless some kept box j < i overlaps it with IoU = inter / (area_i + area_j - inter) above
the threshold (constructor). out (B, N) int32 keep flags (1 kept, 0 suppressed).
"""

import torch
import torch.nn as nn

BATCH = 3
BOXES = 100


class Model(nn.Module):
    def __init__(self, iou_threshold):
        super().__init__()
        self.iou_threshold = iou_threshold

    def forward(self, boxes):
        x1, y1, x2, y2 = boxes.unbind(-1)
        area = (x2 - x1) * (y2 - y1)
        iw = (torch.minimum(x2[:, :, None], x2[:, None, :]) - torch.maximum(x1[:, :, None], x1[:, None, :])).clamp(
            min=0
        )
        ih = (torch.minimum(y2[:, :, None], y2[:, None, :]) - torch.maximum(y1[:, :, None], y1[:, None, :])).clamp(
            min=0
        )
        inter = iw * ih
        iou = inter / (area[:, :, None] + area[:, None, :] - inter)
        B, N = x1.shape
        keep = torch.zeros(B, N, dtype=torch.bool, device=boxes.device)
        for i in range(N):
            suppressed = ((iou[:, i, :i] > self.iou_threshold) & keep[:, :i]).any(dim=-1)
            keep[:, i] = ~suppressed
        return keep.to(torch.int32)


def get_inputs():
    # clusters of jittered boxes on a 1/8 grid (IoUs are exact ratios: no ties at the threshold
    # decided by rounding), a few exact duplicates and nested boxes
    centers = torch.randint(80, 720, (BATCH, 10, 2))
    which = torch.randint(0, 10, (BATCH, BOXES))
    c = torch.gather(centers, 1, which[..., None].expand(-1, -1, 2))
    c = c + torch.randint(-24, 25, (BATCH, BOXES, 2))
    half = torch.randint(16, 64, (BATCH, BOXES, 2))
    boxes = torch.cat([c - half, c + half], dim=-1).float() / 8.0
    boxes[:, 5] = boxes[:, 2]  # duplicates of a higher-scored box
    boxes[:, 9, :2] = boxes[:, 0, :2] + 0.5  # nested in box 0
    boxes[:, 9, 2:] = boxes[:, 0, 2:] - 0.5
    boxes[:, -1] = torch.tensor([-10.0, -10.0, -8.0, -7.5])  # the lowest score, far from the rest: kept
    return [boxes]


def get_init_inputs():
    return [0.5]
