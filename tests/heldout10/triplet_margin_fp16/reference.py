"""Triplet margin loss per sample (F.triplet_margin_loss, p = 2, reduction="none"), fp16 inputs.

anchor, positive, negative are (ROWS, DIM) fp16 embeddings; the positives lie closer to their
anchors than the negatives on average, with a per-row spread so that some losses are 0. With
d(u, v) = || u - v + EPS ||_2 (EPS added to every difference, as F.pairwise_distance does),
loss = max(d(a, p) - d(a, n) + MARGIN, 0), computed in (at least) fp32; the losses are fp32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 300
DIM = 200
MARGIN = 1.0
EPS = 1e-6


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(anchor.dtype, torch.float32)
        return F.triplet_margin_loss(
            anchor.to(ct), positive.to(ct), negative.to(ct), margin=MARGIN, p=2, eps=EPS, reduction="none"
        )


def get_inputs():
    anchor = 16.0 + torch.randn(ROWS, DIM)
    spread = 0.1 + 0.15 * torch.rand(ROWS, 1)
    positive = anchor + spread * torch.randn(ROWS, DIM)
    negative = anchor + 0.2 * torch.randn(ROWS, DIM)
    return [anchor.to(torch.float16), positive.to(torch.float16), negative.to(torch.float16)]


def get_init_inputs():
    return []
