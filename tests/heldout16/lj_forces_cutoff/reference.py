"""Lennard-Jones forces with a cutoff, all pairs (no periodic box, no neighbour list).

pos (N_ATOMS, 3) fp32: a jittered cubic lattice (spacing 1.12 sigma, jitter +-0.08, one corner at
the origin) in random order. F_i = sum_{j != i, r_ij < RC} 24 EPS / r^2 (2 (SIGMA / r)^12 -
(SIGMA / r)^6) (r_i - r_j). Returns (N_ATOMS, 3) fp32.
"""

import torch
import torch.nn as nn

N_ATOMS = 150
SIGMA = 1.0
EPS = 1.0
RC = 2.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pos: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(pos.dtype, torch.float32)
        x = pos.to(ct)
        d = x[:, None, :] - x[None, :, :]
        r2 = (d * d).sum(-1)
        n = x.shape[0]
        keep = (r2 < RC * RC) & ~torch.eye(n, dtype=torch.bool, device=x.device)
        inv_r2 = torch.where(keep, 1.0 / torch.where(keep, r2, torch.ones_like(r2)), torch.zeros_like(r2))
        s6 = (SIGMA * SIGMA * inv_r2) ** 3
        f = 24.0 * EPS * inv_r2 * s6 * (2.0 * s6 - 1.0)
        return (f[..., None] * d).sum(1)


def get_inputs():
    g = torch.arange(6)
    grid = torch.stack(torch.meshgrid(g, g, g, indexing="ij"), dim=-1).reshape(-1, 3).float()
    pick = torch.cat((torch.zeros(1, dtype=torch.long), 1 + torch.randperm(grid.shape[0] - 1)[: N_ATOMS - 1]))
    grid = grid[pick]
    pos = 1.12 * grid + torch.empty(N_ATOMS, 3).uniform_(-0.08, 0.08)
    return [pos[torch.randperm(N_ATOMS)]]


def get_init_inputs():
    return []
