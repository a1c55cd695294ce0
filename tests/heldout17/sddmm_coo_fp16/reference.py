"""SDDMM (sampled dense-dense matrix multiplication) on a COO pattern.

a (M, K) fp16, b (N, K) fp16, rows / cols (NNZ,) int64 (unsorted, repeats allowed), vals (NNZ,)
fp32. out[e] = vals[e] * sum_k a[rows[e], k] b[cols[e], k], fp32 products and sums, fp32 out
(NNZ,). Features share a per-feature offset (0.5 randn), so the dots are mostly of order 10 - 30.
"""

import torch
import torch.nn as nn

M = 90
N = 70
K = 72
NNZ = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, rows, cols, vals):
        ct = torch.promote_types(vals.dtype, torch.float32)
        dots = (a[rows].to(ct) * b[cols].to(ct)).sum(dim=-1)
        return vals.to(ct) * dots


def get_inputs():
    shift = 0.5 * torch.randn(1, K)
    a = torch.randn(M, K) + shift
    b = torch.randn(N, K) + shift
    rows = torch.randint(0, M, (NNZ,))
    cols = torch.randint(0, N, (NNZ,))
    vals = 0.5 + torch.rand(NNZ)
    return [a.half(), b.half(), rows, cols, vals]


def get_init_inputs():
    return []
