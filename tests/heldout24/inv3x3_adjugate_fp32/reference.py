"""Batched inverse of 3 x 3 matrices (camera intrinsics, inertia tensors, per-vertex covariance
in a Gaussian-splatting pass): A (N, 3, 3) fp32, all invertible and moderately conditioned;
out (N, 3, 3) = A^-1 (torch.linalg.inv).
"""

import math

import torch
import torch.nn as nn

NUM = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a):
        return torch.linalg.inv(a)


def get_inputs():
    a = torch.randn(NUM, 3, 3) + 2.5 * torch.eye(3)
    # rotations (inverse = transpose), with a zero on every diagonal entry for the 90-degree ones
    for i in range(0, NUM, 11):
        ang = 0.37 * i
        c, s = math.cos(ang), math.sin(ang)
        a[i] = torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    a[1] = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # a permutation
    a[2] = torch.tensor([[0.0, 0.0, -2.0], [0.0, 3.0, 0.0], [0.5, 0.0, 0.0]])  # zero pivots everywhere
    a[3] = torch.diag(torch.tensor([1.0e3, 1.0, 1.0e-3]))  # scales far apart
    # camera intrinsics K = [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]
    for i in range(4, NUM, 7):
        fx = 500.0 + 3.0 * i
        a[i] = torch.tensor([[fx, 0.0, 320.0], [0.0, 0.9 * fx, 240.0], [0.0, 0.0, 1.0]])
    # symmetric positive definite (covariance-like), every 13th from 5
    for i in range(5, NUM, 13):
        m = torch.randn(3, 3)
        a[i] = m @ m.T + 0.5 * torch.eye(3)
    # scaled up / down by powers of two (exact): the same matrices at 2^+-20
    a[6::29] *= 2.0**20
    a[8::31] *= 2.0**-20
    return [a]


def get_init_inputs():
    return []
