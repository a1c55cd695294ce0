"""Block-sparse (BSR, 16 x 16 blocks) matrix times dense matrix plus a column bias.

A (M, K) is given in BSR form: crow (M / 16 + 1,) int32 block-row pointers, col (nnzb,) int32
block columns (sorted within a row, block row 2 always empty), vals (nnzb, 16, 16) fp16 blocks
(row-major inside a block). x (K, N) fp16, bias (N,) fp16. out = A @ x + bias with fp32 products
and sums, fp16 out (one rounding).
"""

import torch
import torch.nn as nn

M_BLOCKS = 6
K_BLOCKS = 8
N = 72


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, crow, col, vals, x, bias):
        ct = torch.promote_types(x.dtype, torch.float32)
        bs = vals.shape[1]
        mb = crow.numel() - 1
        kb = x.shape[0] // bs
        counts = (crow[1:] - crow[:-1]).long()
        brow = torch.repeat_interleave(torch.arange(mb, device=x.device), counts)
        dense = torch.zeros(mb, kb, bs, bs, dtype=ct, device=x.device)
        dense[brow, col.long()] = vals.to(ct)
        a = dense.permute(0, 2, 1, 3).reshape(mb * bs, kb * bs)
        return (a @ x.to(ct) + bias.to(ct)).to(x.dtype)


def get_inputs():
    bs = 16  # the block size (tl.dot needs 16)
    pattern = torch.rand(M_BLOCKS, K_BLOCKS) < 0.4
    pattern[2] = False
    counts = pattern.sum(dim=1)
    crow = torch.zeros(M_BLOCKS + 1, dtype=torch.int32)
    crow[1:] = torch.cumsum(counts, dim=0).to(torch.int32)
    col = pattern.nonzero()[:, 1].to(torch.int32)
    vals = 0.5 * torch.randn(col.numel(), bs, bs)
    x = torch.randn(K_BLOCKS * bs, N)
    bias = torch.randn(N)
    return [crow, col, vals.half(), x.half(), bias.half()]


def get_init_inputs():
    return []
