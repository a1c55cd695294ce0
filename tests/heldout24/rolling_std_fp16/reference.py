"""Rolling (moving-window) standard deviation of time series, pandas' rolling(window).std() on
the complete windows (ddof = 1): x (R, L) fp16 (prices / sensor readings), WINDOW a constructor
argument; out[r, t] = std(x[r, t : t + WINDOW], unbiased), out (R, L - WINDOW + 1) fp32.
"""

import torch
import torch.nn as nn

SERIES = 24
LENGTH = 300


class Model(nn.Module):
    def __init__(self, window):
        super().__init__()
        self.window = window

    def forward(self, x):
        ft = torch.promote_types(x.dtype, torch.float32)
        return x.to(ft).unfold(-1, self.window, 1).std(dim=-1, unbiased=True)


def get_inputs():
    x = torch.randn(SERIES, LENGTH)
    t = torch.arange(LENGTH, dtype=torch.float32)
    x[0] = 100.0 + 0.5 * torch.cumsum(torch.randn(LENGTH), 0) / 4  # a price near 100
    x[1] = 1000.0 + torch.round(4 * torch.randn(LENGTH)) / 2  # large level, half-unit ticks
    x[2] = 7.0  # constant: std 0
    x[2, LENGTH // 2] = 9.0  # ... with one spike
    x[3] = torch.sin(2 * torch.pi * t / 10)  # one full period per window
    x[4] = 1e-3 * torch.randn(LENGTH)  # tiny values
    x[5] = torch.where(torch.arange(LENGTH) % 2 == 0, 3.0, -3.0)  # alternating: std ~ 3
    x[6::4] = 50.0 + 10.0 * torch.randn(x[6::4].shape)
    return [x.to(torch.float16)]


def get_init_inputs():
    return [10]
