"""1-D Wasserstein (earth mover's) distance between histogram pairs on a shared unit-spaced grid
(scipy.stats.wasserstein_distance of two binned distributions; a loss for histogram outputs).

p, q (R, K) bf16, non-negative, each row with positive mass. Each row is normalised to sum 1 and
the distance is sum_k |CDF_p(k) - CDF_q(k)| with CDF = the inclusive cumulative sum, in fp32;
out (R,) fp32.
"""

import torch
import torch.nn as nn

ROWS = 50
BINS = 500


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p, q):
        ft = torch.promote_types(p.dtype, torch.float32)
        pf, qf = p.to(ft), q.to(ft)
        diff = pf / pf.sum(-1, keepdim=True) - qf / qf.sum(-1, keepdim=True)
        return torch.cumsum(diff, dim=-1).abs().sum(-1)


def get_inputs():
    p = torch.rand(ROWS, BINS)
    q = torch.rand(ROWS, BINS)
    grid = torch.arange(BINS, dtype=torch.float32)
    for r in range(ROWS):
        kind = r % 6
        if kind == 1:
            q[r] = torch.roll(p[r], 7)  # shifted copy
        elif kind == 2:
            q[r] = p[r]  # identical: distance 0
        elif kind == 3:
            p[r] = 0.0
            q[r] = 0.0
            p[r, (r * 37) % BINS] = 3.0  # two spikes: distance |i - j|
            q[r, (r * 91 + 5) % BINS] = 0.5
        elif kind == 4:
            p[r] *= torch.rand(BINS) < 0.1  # sparse
            q[r] *= torch.rand(BINS) < 0.1
            p[r, 0] = 1.0
            q[r, -1] = 1.0
        elif kind == 5:
            p[r] = torch.exp(-0.5 * ((grid - 0.3 * BINS) / (0.05 * BINS)) ** 2) + 1e-3
            q[r] = torch.exp(-0.5 * ((grid - 0.2 * BINS) / (0.04 * BINS)) ** 2)
            q[r] += 0.5 * torch.exp(-0.5 * ((grid - 0.7 * BINS) / (0.08 * BINS)) ** 2)
    return [p.to(torch.bfloat16), q.to(torch.bfloat16)]


def get_init_inputs():
    return []
