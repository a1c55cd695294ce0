"""Top-k mask per row: True where x is >= the row's k-th largest value (ties with it kept).

x (R, N) fp32 scores on a grid of 1/4 (many ties) around a per-row offset in [-20, 20) (rows
entirely negative, rows entirely positive). Output (R, N) bool: x >= topk(x, K).values[:, -1].
"""

import torch
import torch.nn as nn

R = 96
N = 77
K = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kth = torch.topk(x, K, dim=-1).values[:, -1:]
        return x >= kth


def get_inputs():
    offset = torch.randint(-80, 80, (R, 1)).float() / 4
    x = torch.randint(-24, 24, (R, N)).float() / 4 + offset
    return [x]


def get_init_inputs():
    return []
