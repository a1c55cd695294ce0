"""Mixture-of-experts combine (the un-permute after the grouped expert GEMMs): token t's output is
sum_k w[t, k] y[row[t, k]], where y (T K, D) bf16 holds the expert outputs in expert-sorted order and row (T, K)
int64 is the position of (token, choice k) in it; gate weights w (T, K) fp32; fp32 products and sums, out (T, D)
bf16. y is a column slice of a wider (T K, D + 32) buffer (row stride D + 32).
"""

import torch
import torch.nn as nn

TOKENS = 333
HIDDEN = 96
TOPK = 4
EXPERTS = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, y, row, w):
        ft = torch.promote_types(y.dtype, torch.float32)
        gathered = y.to(ft)[row]  # (T, K, D)
        out = (w.to(ft)[:, :, None] * gathered).sum(dim=1)
        return out.to(y.dtype)


def get_inputs():
    T, K, D = TOKENS, TOPK, HIDDEN
    logits = torch.randn(T, EXPERTS)
    topv, topi = logits.topk(K, dim=1)
    w = torch.softmax(topv, dim=1)
    order = torch.argsort(topi.reshape(-1), stable=True)  # sorted position p holds flat (t, k) index order[p]
    row = torch.empty(T * K, dtype=torch.int64)
    row[order] = torch.arange(T * K)
    row = row.view(T, K)
    buf = torch.randn(T * K, D + 32)
    buf[:, D:] = 1e4  # garbage past the hidden size
    w[0] = torch.tensor([1.0, 0.0, 0.0, 0.0])[:K]  # all weight on the first choice ...
    buf[row[0, 1:]] = 3e3  # ... its other choices' rows large (weight 0)
    w[1] = w[1] * 1e-3  # tiny gate weights
    buf[row[T - 1]] *= 100.0  # the last token (the tail block) loud
    buf[row[2, 0]] = -buf[row[2, 1]]  # two experts cancelling under equal weights
    w[2] = 0.0
    w[2, :2] = 0.5
    return [buf.to(torch.bfloat16)[:, :D], row, w]


def get_init_inputs():
    return []
