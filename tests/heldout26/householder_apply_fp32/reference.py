"""Apply a Householder reflector from the left (LAPACK xLARF, side 'L'): out = (I - tau v v^T) A = A - tau v (v^T A)
for a batch of column-major matrices: A (B, M, N) fp32 is the transpose of a row-major (B, N, M) buffer (strides
(M N, 1, M)), v (B, M) and tau (B,) fp32; out (B, M, N) fp32 (contiguous).
"""

import torch
import torch.nn as nn

BATCH = 4
ROWS = 150
COLS = 70


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, v, tau):
        w = torch.einsum("bm,bmn->bn", v, a)
        return a - tau[:, None, None] * v[:, :, None] * w[:, None, :]


def get_inputs():
    buf = torch.randn(BATCH, COLS, ROWS)
    buf[1, COLS - 1] *= 1e3  # a loud last column (the tail tile)
    buf[2] += 5.0  # off-centre entries
    a = buf.transpose(1, 2)
    v = torch.randn(BATCH, ROWS)
    v[:, 0] = 1.0  # LAPACK's unit leading entry
    tau = 2.0 / (v * v).sum(dim=1)  # orthogonal reflectors
    x = a[0, :, 0].double()  # batch 0: the reflector of xLARFG for column 0
    beta = -torch.sign(x[0]) * x.norm()
    v[0] = (x / (x[0] - beta)).float()
    v[0, 0] = 1.0
    tau[0] = float((beta - x[0]) / beta)
    tau[BATCH - 1] = 0.0  # H = I
    return [a, v, tau]


def get_init_inputs():
    return []
