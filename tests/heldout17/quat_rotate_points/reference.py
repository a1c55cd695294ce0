"""Rigid transform of point clouds by per-sample quaternions: out = R(q / |q|) p + t.

points (B, N, 3) fp32 (x, y, z interleaved), quats (B, 4) fp32 in (w, x, y, z) order, not
normalised, trans (B, 3) fp32. R is the rotation matrix of the unit quaternion; fp32 out
(B, N, 3).
"""

import torch
import torch.nn as nn

BATCH = 3
POINTS = 500


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, points, quats, trans):
        q = quats / quats.norm(dim=-1, keepdim=True)
        w, x, y, z = q.unbind(-1)
        rot = torch.stack(
            [
                1 - 2 * (y * y + z * z),
                2 * (x * y - w * z),
                2 * (x * z + w * y),
                2 * (x * y + w * z),
                1 - 2 * (x * x + z * z),
                2 * (y * z - w * x),
                2 * (x * z - w * y),
                2 * (y * z + w * x),
                1 - 2 * (x * x + y * y),
            ],
            dim=-1,
        ).reshape(-1, 3, 3)
        return torch.einsum("bij,bnj->bni", rot, points) + trans[:, None, :]


def get_inputs():
    points = 5.0 * torch.randn(BATCH, POINTS, 3)
    quats = torch.randn(BATCH, 4)
    trans = torch.randn(BATCH, 3)
    return [points, quats, trans]


def get_init_inputs():
    return []
