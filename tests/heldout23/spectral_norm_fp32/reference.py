"""Spectral normalisation of a weight matrix with one power-iteration step (what
`torch.nn.utils.spectral_norm` does to a Linear weight in training mode, with the left singular
vector estimate u passed in).

w (OUT, IN) fp32, u (OUT,) fp32: v = normalize(w^T u), u' = normalize(w v) (eps 1e-12),
sigma = u' . (w v), out = w / sigma (OUT, IN) fp32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT_FEATURES = 70
IN_FEATURES = 150


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, w, u):
        v = F.normalize(w.t() @ u, dim=0, eps=1e-12)
        wv = w @ v
        u2 = F.normalize(wv, dim=0, eps=1e-12)
        sigma = torch.dot(u2, wv)
        return w / sigma


def get_inputs():
    w = torch.randn(OUT_FEATURES, IN_FEATURES) / IN_FEATURES**0.5
    a = torch.randn(OUT_FEATURES)
    b = torch.randn(IN_FEATURES)
    w += 3.0 * torch.outer(a, b) / (a.norm() * b.norm())  # a dominant direction
    w[:, 5] = 0.0  # a dead input column
    w[3] *= 10.0  # one large output row
    u = torch.randn(OUT_FEATURES)
    return [w, u]


def get_init_inputs():
    return []
