"""Batched Cholesky factorisation of 3 x 3 symmetric positive definite matrices (covariances of a
Kalman filter / Gaussian splats): L lower triangular with A = L L^T, torch.linalg.cholesky, which
reads the lower triangle only (LAPACK uplo = 'L'; the upper triangle is not referenced). a (N, 3, 3)
fp32 is the top-left block of (N, 4, 4) homogeneous matrices (a strided view) whose strictly upper
part holds unrelated values; out (N, 3, 3) fp32 with zeros above the diagonal.
"""

import torch
import torch.nn as nn

MATRICES = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a):
        return torch.linalg.cholesky(a)


def get_inputs():
    g = torch.randn(MATRICES, 3, 3)
    spd = g @ g.transpose(1, 2) + 0.5 * torch.eye(3)
    spd[0::9] = torch.diag(torch.tensor([1e4, 1.0, 1e-4]))  # widely spread scales
    spd[1::9] = torch.eye(3)
    u = torch.tensor([1.0, 1.0, 1.0]) / 3**0.5
    spd[2::9] = torch.eye(3) * 1e-3 + torch.outer(u, u)  # nearly rank one: tiny trailing pivots
    spd[3::9] = torch.tensor([[4.0, 2.0, -2.0], [2.0, 10.0, 5.0], [-2.0, 5.0, 9.0]])  # negative entries
    spd[4::7] = 1e3 * spd[4::7]
    h = torch.zeros(MATRICES, 4, 4)
    h[:, :3, :3] = torch.tril(spd)
    h[:, :3, :3] += torch.triu(torch.full((3, 3), -7.5), diagonal=1)  # not referenced: junk above
    h[:, 3, 3] = 1.0
    return [h[:, :3, :3]]


def get_init_inputs():
    return []
