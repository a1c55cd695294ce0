"""Pairwise IoU of two sets of axis-aligned boxes (torchvision.ops.box_iou).

boxes1 (N1, 4) and boxes2 (N2, 4) are fp32 in (x1, y1, x2, y2) form with x1 < x2, y1 < y2
(centres uniform in [0, 100]^2, sides in [2, 30], so many pairs overlap and many do not). Output
(N1, N2) fp32: inter / (area1 + area2 - inter), inter the area of the (clamped) intersection.
"""

import torch
import torch.nn as nn

N1 = 300
N2 = 200


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, boxes1: torch.Tensor, boxes2: torch.Tensor) -> torch.Tensor:
        area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
        area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
        lt = torch.max(boxes1[:, None, :2], boxes2[None, :, :2])
        rb = torch.min(boxes1[:, None, 2:], boxes2[None, :, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[..., 0] * wh[..., 1]
        return inter / (area1[:, None] + area2[None, :] - inter)


def _boxes(n):
    centre = 100 * torch.rand(n, 2)
    size = 2 + 28 * torch.rand(n, 2)
    return torch.cat([centre - size / 2, centre + size / 2], dim=1)


def get_inputs():
    return [_boxes(N1), _boxes(N2)]


def get_init_inputs():
    return []
