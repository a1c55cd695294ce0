"""One direction of the Chamfer distance between point clouds (the nearest-neighbour step of a
Chamfer loss or of ICP): for every point a[b, i] the squared Euclidean distance to its nearest point
of b[b] and that point's index (the first one on exact ties), as torch.min over the pairwise
squared distances. a (B, N, 3) is the xyz part of homogeneous (B, N, 4) points (a strided view),
b (B, M, 3) contiguous; outputs dist (B, N) fp32 and idx (B, N) int64.
"""

import torch
import torch.nn as nn

CLOUDS = 3
QUERIES = 200
TARGETS = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        d = ((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(-1)
        dist, idx = d.min(dim=2)
        return dist, idx


def get_inputs():
    ah = torch.randn(CLOUDS, QUERIES, 4)
    ah[..., 3] = 1.0
    b = torch.randn(CLOUDS, TARGETS, 3) + 0.5
    b[1] = 4.0 * b[1]  # a sparse target cloud: large distances
    b[:, TARGETS - 1] = b[:, 7]  # an exact duplicate in the last (partial) chunk of targets
    ah[:, 0, :3] = 0.0  # the origin: padding lanes loaded as zero would be "at distance 0"
    ah[:, 1, :3] = b[:, 7] + 1e-3  # nearest neighbour duplicated: index 7 (first), not TARGETS - 1
    ah[:, 2, :3] = b[:, TARGETS - 2]  # exactly on a target in the tail: distance 0
    ah[2, 3:, :3] = 0.01 * ah[2, 3:, :3]  # a dense cluster near the origin
    return [ah[..., :3], b]


def get_init_inputs():
    return []
