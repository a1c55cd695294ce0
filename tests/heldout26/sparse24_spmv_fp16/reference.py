"""2:4 structured-sparse matrix (the semi-structured format of sparse tensor cores) times a batch of vectors,
y = x A^T: A (M, K) keeps two values in every group of four columns; vals (M, K / 2) fp16 holds group g's kept
values at 2g and 2g + 1 (column order) and meta (M, K / 8) uint8 two groups per byte (group 2q in the low
nibble), each nibble i0 | i1 << 2 with the in-group columns i0 < i1. x (B, K) fp16 is a column slice of a wider
(B, K + 8) buffer; fp32 products and sums; y (B, M) fp32.
"""

import torch
import torch.nn as nn

BATCH = 3
ROWS = 300
COLS8 = 75  # K = 8 COLS8 = 600


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, vals, meta, x):
        ft = torch.promote_types(vals.dtype, torch.float32)
        M, H = vals.shape
        g = torch.arange(H // 2, device=vals.device)
        nib = (meta[:, g // 2].to(torch.int64) >> (4 * (g % 2))) & 0xF
        dense = torch.zeros(M, 2 * H, dtype=ft, device=vals.device)
        dense.scatter_(1, 4 * g + (nib & 3), vals[:, 0::2].to(ft))
        dense.scatter_(1, 4 * g + (nib >> 2), vals[:, 1::2].to(ft))
        return x.to(ft) @ dense.t()


def get_inputs():
    M, K = ROWS, 8 * COLS8
    G = K // 4
    pairs = torch.tensor([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]])
    choice = torch.randint(0, 6, (M, G))
    choice[0] = 5  # row 0: always the last two columns of a group
    choice[1] = 0  # row 1: always the first two
    p = pairs[choice]
    nib = p[..., 0] | (p[..., 1] << 2)
    meta = (nib[:, 0::2] | (nib[:, 1::2] << 4)).to(torch.uint8)
    vals = torch.randn(M, K // 2)
    vals[2, ::3] = 0.0  # explicit zeros among the kept values
    vals[M - 1] = 250.0 + 40.0 * torch.rand(K // 2)  # a loud last row (the tail block)
    wide = torch.randn(BATCH, K + 8)
    wide[:, K:] = 1e4  # garbage past the vectors
    wide[1] = 200.0 + wide[1]  # a vector far from zero
    wide[1, K:] = 1e4
    return [vals.to(torch.float16), meta, wide.to(torch.float16)[:, :K]]


def get_init_inputs():
    return []
