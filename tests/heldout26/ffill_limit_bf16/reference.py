"""Forward fill of missing values with a gap limit along time (pandas DataFrame.ffill(limit=LIMIT) on each row):
out[r, t] = x[r, j] for the last j <= t where x[r, j] is not NaN, if t - j <= LIMIT, else NaN (infinities are
values); and the staleness age[r, t] = t - j (-1 before the first value; it keeps counting past the limit).
x (R, L) bf16 is a time slice of a wider (R, L + 20) buffer (row stride L + 20); out bf16 (exact), age int32.
"""

import torch
import torch.nn as nn

ROWS = 28
STEPS = 300


class Model(nn.Module):
    def __init__(self, limit):
        super().__init__()
        self.limit = limit

    def forward(self, x):
        t = torch.arange(x.shape[1], device=x.device)[None, :]
        last = torch.cummax(torch.where(torch.isnan(x), -1, t), dim=1).values
        val = x.gather(1, last.clamp(min=0))
        ok = (last >= 0) & (t - last <= self.limit)
        out = torch.where(ok, val, torch.full_like(val, float("nan")))
        age = torch.where(last >= 0, t - last, -1)
        return out, age.to(torch.int32)


def get_inputs():
    R, L = ROWS, STEPS
    wide = torch.randn(R, L + 20)
    wide[torch.rand(R, L + 20) < 0.3] = float("nan")  # scattered missing values
    x = wide[:, :L]
    for g, start in enumerate(range(10, L - 12, 25)):  # gaps of 3 .. 8 steps around the limit
        x[:, start : start + 3 + g % 6] = float("nan")
    x[0, :20] = float("nan")  # leading missing values: NaN before the first value
    x[1] = float("nan")  # an all-missing row
    x[2] = torch.randn(L)  # no missing values
    x[3, ::7] = float("inf")  # infinities are values and get carried
    x[3, 1::7] = float("-inf")
    x[4, 4:] = float("nan")  # one early value, then a gap over every later chunk
    x[5, 120:140] = float("nan")  # a gap across the first chunk boundary
    x[R - 1, L - 1] = 42.0  # a value on the last step after a gap (the tail chunk)
    x[R - 1, L - 9 : L - 1] = float("nan")
    x[6] = torch.where(torch.isnan(x[6]), x[6], -0.0)  # signed zeros are values
    return [wide.to(torch.bfloat16)[:, :L]]


def get_init_inputs():
    return [5]
