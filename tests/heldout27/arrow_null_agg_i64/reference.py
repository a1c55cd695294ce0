"""Aggregates of a nullable int64 column per row group (Arrow / Parquet): the validity bitmap holds one bit per value,
LSB first within each byte (value j at bit j % 8 of byte j // 8), 1 = valid; the padding bits of the last byte are
undefined (set here). Per group: the sum of the valid values, their count and their minimum (INT64_MAX when the
group has no valid value), three int64 outputs (G,). The values (G, N) are columns 3 .. N + 2 of a (G, N + 8) page
buffer (a header before, a footer after); the bitmap is (G, ceil(N / 8)) uint8.
"""

import torch
import torch.nn as nn

GROUPS = 40
ROWS = 997


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, values, validity):
        G, N = values.shape
        j = torch.arange(N, device=values.device)
        valid = ((validity[:, j // 8].to(torch.int64) >> (j % 8)) & 1) == 1
        s = torch.where(valid, values, 0).sum(1)
        c = valid.sum(1)
        mn = torch.where(valid, values, torch.iinfo(torch.int64).max).amin(1)
        return s, c, mn


def get_inputs():
    G, N = GROUPS, ROWS
    values = torch.randint(-(2**40), 2**40, (G, N))
    values[3] = torch.randint(1, 2**20, (N,))  # all positive: the minimum is far from 0
    values[4, N // 3] = -(2**62)  # one extreme value
    valid = torch.rand(G, N) > 0.1
    valid[0] = False  # an all-null group
    valid[1] = True  # no nulls
    valid[2, N // 2 :] = False
    nb = (N + 7) // 8
    bits = torch.ones(G, nb * 8, dtype=torch.bool)  # padding bits past N set (undefined in Arrow)
    bits[:, :N] = valid
    weights = 2 ** torch.arange(8)
    bitmap = (bits.view(G, nb, 8).to(torch.int64) * weights).sum(-1).to(torch.uint8)
    page = torch.randint(-(2**62), 2**62, (G, N + 8))  # header and footer words
    page[:, 3 : N + 3] = values
    return [page[:, 3 : N + 3], bitmap]


def get_init_inputs():
    return []
