"""Mann-Whitney U statistic of two samples per row (scipy.stats.mannwhitneyu's U1, ties counted 1/2):
U[b] = sum_i sum_j ([x_i > y_j] + 0.5 [x_i == y_j]), and the common-language effect size AUC = U / (N1 N2).
x (B, N1) fp16, y (B, N2) fp16 (a column slice of a wider (B, N2 + 16) buffer); U and AUC (B,) fp32.
"""

import torch
import torch.nn as nn

BATCH = 6
N1 = 150
N2 = 230


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        ft = torch.promote_types(x.dtype, torch.float32)
        xs = x.to(ft)[:, :, None]
        ys = y.to(ft)[:, None, :]
        u = (xs > ys).to(ft).sum(dim=(1, 2)) + 0.5 * (xs == ys).to(ft).sum(dim=(1, 2))
        return u, u / (x.shape[1] * y.shape[1])


def get_inputs():
    x = torch.round(4.0 * torch.randn(BATCH, N1)) / 4.0  # quarter steps: many ties
    wide = torch.round(4.0 * torch.randn(BATCH, N2 + 16)) / 4.0
    x[1] += 1.0  # a shifted sample
    x[2] = 0.5  # one value everywhere: all pairs tie (U = N1 N2 / 2)
    wide[2] = 0.5
    x[3] = 100.0 + torch.rand(N1)  # x above every y: U = N1 N2
    x[4, :] = -x[4, :].abs()  # x at or below zero against y ...
    wide[4, :] = wide[4, :].abs()  # ... at or above zero (ties only at 0)
    x[BATCH - 1, N1 - 1] = 1e4  # the last x (the tail chunk) above everything
    wide[:, N2:] = -1e4  # garbage past y: below every x
    return [x.to(torch.float16), wide.to(torch.float16)[:, :N2]]


def get_init_inputs():
    return []
