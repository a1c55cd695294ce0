"""Weighted mean over the valid positions of each row: sum(x * w * mask) / sum(w * mask).

x is (64, 500) fp32, w is (64, 500) fp32 positive weights in [0.1, 1.1), mask is (64, 500) bool
(about 70% True; every row has valid positions); the output is (64,) fp32.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        wm = w * mask.to(w.dtype)
        return (x * wm).sum(dim=1) / wm.sum(dim=1)


def get_inputs():
    x = torch.randn(64, 500, dtype=torch.float32)
    w = torch.rand(64, 500, dtype=torch.float32) + 0.1
    mask = torch.rand(64, 500) < 0.7
    return [x, w, mask]


def get_init_inputs():
    return []
