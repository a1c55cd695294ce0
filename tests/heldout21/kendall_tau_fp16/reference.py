"""Kendall's tau-a rank correlation of every row pair (x[r], y[r]) (no tie correction: tied pairs count 0).

x, y (R, N) fp16 with many ties; out (R,) fp32:
tau[r] = sum_{i < j} sign(x_i - x_j) sign(y_i - y_j) / (N (N - 1) / 2).
"""

import torch
import torch.nn as nn

ROWS = 24
LENGTH = 150


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        n = x.shape[1]
        sx = torch.sign(x[:, :, None] - x[:, None, :]).to(torch.float32)
        sy = torch.sign(y[:, :, None] - y[:, None, :]).to(torch.float32)
        upper = torch.triu(torch.ones(n, n, dtype=torch.bool, device=x.device), diagonal=1)
        s = (sx * sy * upper).sum(dim=(1, 2))
        return (s / (n * (n - 1) / 2)).to(torch.promote_types(x.dtype, torch.float32))


def get_inputs():
    x = torch.round(3.0 * torch.randn(ROWS, LENGTH)) / 2
    rho = torch.linspace(-1.0, 1.0, ROWS)[:, None]
    y = torch.round(4.0 * (rho * x + (1 - rho.abs()) * torch.randn(ROWS, LENGTH))) / 4
    return [x.half(), y.half()]


def get_init_inputs():
    return []
