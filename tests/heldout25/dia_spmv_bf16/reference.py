"""Sparse matrix times a batch of vectors with the matrix in DIA (diagonal) format, the banded
operators of stencils / implicit solvers: offsets (ND,) int64 and data (ND, N) with, row-indexed,
data[d, i] = A[i, i + offsets[d]]; y[b, i] = sum_d data[d, i] x[b, i + offsets[d]] over the d with
0 <= i + offsets[d] < N. The slots of data whose column falls outside the matrix are padding and
hold NaN (never read). data bf16, x (B, N) bf16 is the first N columns of a wider buffer (a strided
view); y (B, N) fp32.
"""

import torch
import torch.nn as nn

VECTORS = 4
SIZE = 600


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, data, offsets, x):
        ft = torch.promote_types(x.dtype, torch.float32)
        n = x.shape[1]
        i = torch.arange(n, device=x.device)
        y = torch.zeros(x.shape[0], n, dtype=ft, device=x.device)
        for d in range(offsets.shape[0]):
            j = i + offsets[d]
            ok = (j >= 0) & (j < n)
            xs = x[:, j.clamp(0, n - 1)].to(ft)
            y += torch.where(ok[None, :], data[d].to(ft)[None, :] * xs, torch.zeros_like(xs))
        return y


def get_inputs():
    offsets = torch.tensor([-7, -2, -1, 0, 1, 3, 11], dtype=torch.int64)
    data = torch.randn(offsets.shape[0], SIZE)
    data[3] = 4.0 + data[3].abs()  # a dominant main diagonal
    i = torch.arange(SIZE)
    for d in range(offsets.shape[0]):
        j = i + offsets[d]
        data[d, (j < 0) | (j >= SIZE)] = float("nan")  # padding slots
    buf = torch.randn(VECTORS, SIZE + 24)
    buf[:, SIZE:] = 1e4  # what lies past the vectors' last column
    buf[1] = 1.0  # row sums of A
    buf[2, :SIZE] = torch.linspace(-50.0, 50.0, SIZE)
    buf[3, SIZE - 12 :] = 30.0  # a loud tail (the last, partial block)
    return [data.to(torch.bfloat16), offsets, buf.to(torch.bfloat16)[:, :SIZE]]


def get_init_inputs():
    return []
