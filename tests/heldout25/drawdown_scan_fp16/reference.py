"""Drawdown of price series (risk reporting): the running peak p_t = max_{s <= t} x_s, the drawdown
dd_t = (p_t - x_t) / p_t (0 while the peak is still 0: a series that has not started trading) and
the maximum drawdown of every series, max_t dd_t. x (R, L) fp16 is the close field of an OHLC
tensor stored field-major, (R, 4, L) (a strided view); outputs dd (R, L) fp32 and max_dd (R,) fp32.
"""

import torch
import torch.nn as nn

SERIES = 21
STEPS = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, close):
        ft = torch.promote_types(close.dtype, torch.float32)
        x = close.to(ft)
        peak = torch.cummax(x, dim=1).values
        safe = torch.where(peak > 0, peak, torch.ones_like(peak))
        dd = torch.where(peak > 0, (peak - x) / safe, torch.zeros_like(x))
        return dd, dd.amax(dim=1)


def get_inputs():
    steps = torch.randn(SERIES, STEPS) * 0.02
    x = 100.0 * torch.exp(torch.cumsum(steps, dim=1))
    t = torch.arange(STEPS, dtype=torch.float32)
    x[0] = 10.0 + 0.05 * t  # rising: no drawdown
    x[1] = 500.0 - 1.5 * t  # falling from the first step: the peak stays x[1, 0]
    x[2, STEPS // 2 :] = 0.3 * x[2, STEPS // 2 :]  # a crash in the middle
    x[3, : STEPS // 3] = 0.0  # not trading yet: peak 0, drawdown 0
    x[4, -1] = 1000.0  # a new peak on the very last step
    x[5] = 0.0  # never traded
    x[6, :10] = 2000.0  # an early high (first chunk) that the later chunks never reach
    ohlc = torch.stack([x * 1.01, x * 1.02, x * 0.98, x], dim=1)
    return [ohlc.to(torch.float16)[:, 3]]


def get_init_inputs():
    return []
