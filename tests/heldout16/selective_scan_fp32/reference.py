"""Mamba selective scan (`selective_scan_fn` with z, D and delta_softplus=True), sequential form.

u, delta, z (BATCH, DIM, LEN); A (DIM, NSTATE) negative (S4D-real: -(n + 1) times a per-channel
factor); Bm, Cm (BATCH, NSTATE, LEN) input-dependent; Dskip (DIM,).
dt = softplus(delta); h_t = exp(dt A) h_{t-1} + dt B_t u_t (state (DIM, NSTATE) per sample);
y_t = C_t . h_t + D u_t; out = y silu(z). fp32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
DIM = 40
LEN = 37
NSTATE = 12


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, u, delta, A, Bm, Cm, Dskip, z):
        dt = F.softplus(delta)  # (B, D, L)
        dA = torch.exp(dt[..., None] * A[None, :, None, :])  # (B, D, L, N)
        dBu = dt[..., None] * Bm.transpose(1, 2)[:, None] * u[..., None]  # (B, D, L, N)
        h = torch.zeros(u.shape[0], u.shape[1], A.shape[1], dtype=u.dtype, device=u.device)
        ys = []
        for t in range(u.shape[2]):
            h = dA[:, :, t] * h + dBu[:, :, t]
            ys.append((h * Cm[:, None, :, t]).sum(-1))
        y = torch.stack(ys, dim=-1) + u * Dskip[None, :, None]
        return y * F.silu(z)


def get_inputs():
    u = torch.randn(BATCH, DIM, LEN)
    delta = torch.empty(BATCH, DIM, LEN).uniform_(-4.0, 1.0)
    A = -torch.arange(1, NSTATE + 1, dtype=torch.float32)[None, :] * torch.empty(DIM, 1).uniform_(0.5, 1.5)
    Bm = torch.randn(BATCH, NSTATE, LEN)
    Cm = torch.randn(BATCH, NSTATE, LEN)
    Dskip = torch.randn(DIM)
    z = torch.randn(BATCH, DIM, LEN)
    return [u, delta, A, Bm, Cm, Dskip, z]


def get_init_inputs():
    return []
