"""Chebyshev series f(x) = sum_k c[r, k] T_k(x) of every row (chebfun-style function approximation, spectral
methods), one coefficient vector per row.

x (R, N) fp32 in [-1, 1] (the ends included), coeffs (R, K + 1) fp32, lowest degree first; out (R, N) fp32.
Here by the three-term recurrence T_0 = 1, T_1 = x, T_{k+1} = 2 x T_k - T_{k-1}.
"""

import torch
import torch.nn as nn

ROWS = 24
POINTS = 1000
DEGREE = 11


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, coeffs):
        t_prev = torch.ones_like(x)
        t_cur = x
        out = coeffs[:, :1] * t_prev + coeffs[:, 1:2] * t_cur
        for k in range(2, coeffs.shape[1]):
            t_prev, t_cur = t_cur, 2 * x * t_cur - t_prev
            out = out + coeffs[:, k : k + 1] * t_cur
        return out


def get_inputs():
    x = 2.0 * torch.rand(ROWS, POINTS) - 1.0
    x[:, 0] = -1.0
    x[:, 1] = 1.0
    decay = 0.75 ** torch.arange(DEGREE + 1, dtype=torch.float32)
    coeffs = torch.randn(ROWS, DEGREE + 1) * decay
    return [x, coeffs]


def get_init_inputs():
    return []
