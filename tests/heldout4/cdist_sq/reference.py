"""Pairwise squared Euclidean distances between the rows of x and the rows of y.

x is (100, 48) fp32, y is (77, 48) fp32, both unit-variance points around a common offset of 100
(uncentred features); the output is (100, 77) fp32 with out[i, j] = sum_k (x[i, k] - y[j, k])^2.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        d = x[:, None, :] - y[None, :, :]
        return (d * d).sum(-1)


def get_inputs():
    return [torch.randn(100, 48, dtype=torch.float32) + 100.0, torch.randn(77, 48, dtype=torch.float32) + 100.0]


def get_init_inputs():
    return []
