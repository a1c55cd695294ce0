"""k-means assignment step: nearest centroid of each point and its squared Euclidean distance.

points (NUM_POINTS, DIM) and centroids (NUM_CENTROIDS, DIM) fp32, all around an offset of 100
(centroids 100 + N(0, 3^2) per feature, each point 0.5 N(0, 1) per feature from one centroid).
d[i, k] = sum_f (points[i, f] - centroids[k, f])^2; returns (argmin_k d (int64, the first index on
ties), min_k d (fp32)).
"""

import torch
import torch.nn as nn

NUM_POINTS = 1000
NUM_CENTROIDS = 40
DIM = 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, points: torch.Tensor, centroids: torch.Tensor):
        d = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(dim=-1)
        dist, idx = d.min(dim=1)
        return idx, dist


def get_inputs():
    centroids = 100.0 + 3.0 * torch.randn(NUM_CENTROIDS, DIM)
    owner = torch.randint(0, NUM_CENTROIDS, (NUM_POINTS,))
    points = centroids[owner] + 0.5 * torch.randn(NUM_POINTS, DIM)
    return [points, centroids]


def get_init_inputs():
    return []
