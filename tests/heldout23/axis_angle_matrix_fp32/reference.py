"""Axis-angle (rotation vector) to rotation matrix by Rodrigues' formula (pytorch3d's
axis_angle_to_matrix / so3_exp_map, as pose layers use it).

aa (N, 3) fp32, theta = |aa|, K = the cross-product matrix of aa (not of the unit axis):
R = I + A K + B K^2 with A = sin(theta) / theta, B = (1 - cos(theta)) / theta^2, both replaced by
their Taylor series 1 - theta^2 / 6 and 1 / 2 - theta^2 / 24 below theta = 1e-3 (theta = 0 gives
I). out (N, 3, 3) fp32.
"""

import math

import torch
import torch.nn as nn

NUM_ROTATIONS = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, aa):
        x, y, z = aa[:, 0], aa[:, 1], aa[:, 2]
        t2 = x * x + y * y + z * z
        theta = torch.sqrt(t2)
        small = theta < 1e-3
        safe = torch.where(small, torch.ones_like(theta), theta)
        A = torch.where(small, 1 - t2 / 6, torch.sin(safe) / safe)
        B = torch.where(small, 0.5 - t2 / 24, (1 - torch.cos(safe)) / (safe * safe))
        zero = torch.zeros_like(x)
        K = torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], dim=-1).reshape(-1, 3, 3)
        eye = torch.eye(3, dtype=aa.dtype, device=aa.device)
        return eye + A[:, None, None] * K + B[:, None, None] * (K @ K)


def get_inputs():
    axis = torch.nn.functional.normalize(torch.randn(NUM_ROTATIONS, 3), dim=-1)
    angle = (torch.rand(NUM_ROTATIONS) * 2 - 1) * 3 * math.pi  # beyond +-pi: wraps
    angle[0] = 0.0  # the identity
    angle[1] = 1e-6
    angle[2] = 5e-4  # Taylor branch
    angle[3] = math.pi
    angle[4] = 2e-3  # just above the switch
    angle[5::17] = 1e-7  # more near-identity rotations
    aa = axis * angle[:, None]
    aa[6] = torch.tensor([0.0, 0.0, 1.5])  # about a coordinate axis
    aa[7] = torch.tensor([0.0, -2.0, 0.0])
    return [aa]


def get_init_inputs():
    return []
