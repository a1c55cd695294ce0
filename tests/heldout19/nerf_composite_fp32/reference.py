"""NeRF volume rendering (alpha compositing of the samples along each ray), three outputs.

sigma (R, S) densities >= 0, tvals (R, S) sorted sample depths in [2, 6], rgb (R, S, 3) colours,
fp32. delta_i = t_{i+1} - t_i with 1e10 for the last sample (the background absorbs what is left),
alpha_i = 1 - exp(-sigma_i delta_i), T_i = exp(-sum_{j < i} sigma_j delta_j) (exclusive),
w_i = alpha_i T_i. Returns (sum_i w_i rgb_i (R, 3), sum_i w_i t_i (R,), sum_i w_i (R,)).
About 60% of the rays cross a surface (a density bump at a random depth), the others only thin
noise; the last sample's density is 0 for about half of the rays.
"""

import torch
import torch.nn as nn

RAYS = 200
SAMPLES = 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, sigma, tvals, rgb):
        last = torch.full_like(tvals[:, :1], 1e10)
        delta = torch.cat([tvals[:, 1:] - tvals[:, :-1], last], dim=1)
        tau = sigma * delta
        alpha = 1.0 - torch.exp(-tau)
        before = torch.cat([torch.zeros_like(tau[:, :1]), torch.cumsum(tau[:, :-1], dim=1)], dim=1)
        w = alpha * torch.exp(-before)
        color = (w[..., None] * rgb).sum(dim=1)
        depth = (w * tvals).sum(dim=1)
        acc = w.sum(dim=1)
        return color, depth, acc


def get_inputs():
    near, far = 2.0, 6.0
    steps = (torch.arange(SAMPLES).float() + torch.rand(RAYS, SAMPLES)) / SAMPLES
    tvals = near + (far - near) * steps
    surface = near + 0.5 + 3.0 * torch.rand(RAYS, 1)
    hit = (torch.rand(RAYS, 1) < 0.6).float()
    bump = 8.0 * torch.exp(-(((tvals - surface) / 0.15) ** 2)) * hit
    sigma = bump + torch.relu(0.4 * torch.randn(RAYS, SAMPLES))
    rgb = torch.rand(RAYS, SAMPLES, 3)
    return [sigma, tvals, rgb]


def get_init_inputs():
    return []
