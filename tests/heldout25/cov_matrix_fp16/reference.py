"""Sample covariance matrix, torch.cov (rows are variables, columns observations, correction 1):
C = (X - mean) (X - mean)^T / (N - 1) with the per-variable means over the N observations.
x (V, N) fp16 is the transpose of an observation-major (N, V) table (a strided view); out (V, V) fp32.
"""

import torch
import torch.nn as nn

VARS = 40
OBS = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        ft = torch.promote_types(x.dtype, torch.float32)
        return torch.cov(x.to(ft))


def get_inputs():
    table = torch.randn(OBS, VARS)
    table[:, 0] = 300.0 + table[:, 0]  # far from zero: the mean must be removed before squaring
    table[:, 1] = 2.0 * table[:, 0] - 450.0  # exactly correlated with variable 0
    table[:, 2] = 3.0  # constant: a zero row and column
    table[:, 3] = -table[:, 4]  # anti-correlated pair
    table[:, 5] = 1e-3 * table[:, 5]
    table[:, 6] = 50.0 + 10.0 * table[:, 6]
    table[OBS - 1, 7] = 40.0  # a spike in the last observation (the tail chunk)
    table[:, VARS - 1] = -80.0 + table[:, VARS - 1]  # the last variable (a tail tile) off zero too
    return [table.to(torch.float16).t()]


def get_init_inputs():
    return []
