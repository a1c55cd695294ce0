"""Cumulative trapezoidal integral of sampled rows on non-uniform grids (torch.cumulative_trapezoid
/ scipy.integrate.cumulative_trapezoid: velocity from irregularly sampled acceleration, areas
under curves).

y (R, L) fp16 samples at positions x (R, L) fp16 (increasing along each row, unevenly spaced);
out (R, L - 1) with out[r, t] = sum_{k <= t} (y[r, k] + y[r, k + 1]) (x[r, k + 1] - x[r, k]) / 2,
computed in fp32 and rounded once to y's dtype.
"""

import torch
import torch.nn as nn

ROWS = 45
LENGTH = 700


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, y, x):
        yf = y.to(torch.promote_types(y.dtype, torch.float32))
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        return torch.cumulative_trapezoid(yf, x=xf, dim=-1).to(y.dtype)


def get_inputs():
    dx = 0.01 + 0.19 * torch.rand(ROWS, LENGTH)
    x = torch.cumsum(dx, dim=1) - 10.0 * torch.rand(ROWS, 1)
    phase = torch.linspace(0.0, 12.0, LENGTH)[None, :] * (1.0 + torch.rand(ROWS, 1))
    y = 0.5 * torch.sin(phase) + 0.1 * torch.randn(ROWS, LENGTH)
    level = torch.tensor([1.0, 2.0, -1.5, 0.0])[torch.arange(ROWS) % 4]
    y = y + level[:, None]  # rising, steep, falling and zero-mean (oscillating) integrals
    return [y.to(torch.float16), x.to(torch.float16)]


def get_init_inputs():
    return []
