"""DLRM dot interaction: pairwise dot products of the dense and sparse feature embeddings.

dense (B, D) fp16 (the bottom MLP's output), emb (B, S, D) fp16 (the S looked-up sparse embeddings).
T = [dense; emb] is (B, F = S + 1, D); Z = T T^T in fp32; the strictly lower triangle of Z, in
torch.tril_indices(F, F, offset=-1) order ((1, 0), (2, 0), (2, 1), (3, 0), ...), is concatenated
after the dense features: out (B, D + F (F - 1) / 2) fp16 (one rounding).
"""

import torch
import torch.nn as nn

BATCH = 6
NUM_SPARSE = 26
DIM = 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, dense, emb):
        ct = torch.promote_types(dense.dtype, torch.float32)
        t = torch.cat([dense[:, None, :], emb], dim=1).to(ct)
        z = torch.bmm(t, t.transpose(1, 2))
        f = t.shape[1]
        li, lj = torch.tril_indices(f, f, offset=-1, device=dense.device)
        out = torch.cat([dense.to(ct), z[:, li, lj]], dim=1)
        return out.to(dense.dtype)


def get_inputs():
    dense = 0.7 * torch.randn(BATCH, DIM)
    emb = 0.7 * torch.randn(BATCH, NUM_SPARSE, DIM) + 0.3 * torch.randn(BATCH, NUM_SPARSE, 1)
    return [dense.half(), emb.half()]


def get_init_inputs():
    return []
