"""Per-row sample skewness and excess kurtosis (scipy.stats.skew / kurtosis with bias=True, the
moment coefficients used for feature engineering and data-quality checks).

x (R, N) bf16; with m_k = mean((x - mean(x))^k) over the row, skew = m3 / m2^1.5 and excess
kurtosis = m4 / m2^2 - 3, computed in fp32; out (R, 2) fp32 = [skew, kurtosis] per row.
"""

import torch
import torch.nn as nn

ROWS = 60
COLS = 900


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        d = xf - xf.mean(dim=-1, keepdim=True)
        m2 = (d * d).mean(dim=-1)
        m3 = (d * d * d).mean(dim=-1)
        m4 = (d * d * d * d).mean(dim=-1)
        return torch.stack([m3 / m2**1.5, m4 / (m2 * m2) - 3.0], dim=-1)


def get_inputs():
    x = torch.empty(ROWS, COLS)
    for r in range(ROWS):
        kind = r % 6
        if kind == 0:
            row = torch.randn(COLS)
        elif kind == 1:
            row = torch.empty(COLS).exponential_(1.0)  # skew 2, kurtosis 6
        elif kind == 2:
            row = torch.rand(COLS)  # kurtosis -1.2
        elif kind == 3:
            row = torch.exp(0.6 * torch.randn(COLS))  # lognormal
        elif kind == 4:
            row = 40.0 + 2.0 * torch.randn(COLS)  # far from zero
        else:
            row = (torch.rand(COLS) < 0.1).float() - 3.0  # two values, strongly skewed
        x[r] = row
    return [x.to(torch.bfloat16)]


def get_init_inputs():
    return []
