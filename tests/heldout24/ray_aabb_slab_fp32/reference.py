"""Ray / axis-aligned box intersection by the slab method (a BVH traversal or volume renderer's
entry test): origins, dirs, lo, hi (N, 3) fp32 (origins and dirs are views of one packed (N, 6)
ray array), one box per ray, lo <= hi. With inv = 1 / dir (IEEE: a zero component gives +-inf),
t1 = (lo - o) inv, t2 = (hi - o) inv, t_near = max over axes of min(t1, t2), t_far = min over
axes of max(t1, t2); the ray (t >= 0) hits when t_far >= max(t_near, 0), and out (N,) fp32 =
max(t_near, 0) (0 for an origin inside the box) on a hit, +inf on a miss.
"""

import torch
import torch.nn as nn

RAYS = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, origins, dirs, lo, hi):
        inv = 1.0 / dirs
        t1 = (lo - origins) * inv
        t2 = (hi - origins) * inv
        t_near = torch.minimum(t1, t2).amax(dim=1)
        t_far = torch.maximum(t1, t2).amin(dim=1)
        t_entry = t_near.clamp_min(0.0)
        return torch.where(t_far >= t_entry, t_entry, torch.full_like(t_entry, float("inf")))


def get_inputs():
    n = RAYS
    centre = 4.0 * torch.randn(n, 3)
    half = 0.2 + 2.0 * torch.rand(n, 3)
    lo, hi = centre - half, centre + half
    origins = 6.0 * torch.randn(n, 3)
    target = centre + 1.5 * half * (2 * torch.rand(n, 3) - 1)  # aim near the box: about half hit
    dirs = target - origins
    dirs = dirs / dirs.norm(dim=1, keepdim=True)
    dirs[1::2] *= -1.0  # every other ray points away: misses unless its origin is inside
    # axis-parallel rays (zero components, both signs of zero) through and beside their box
    for i in range(2, n, 9):
        origins[i] = centre[i] + half[i] * torch.tensor([0.3, -0.5, 0.0]) - torch.tensor([0.0, 0.0, 10.0])
        dirs[i] = torch.tensor([0.0, -0.0, 1.0])
    for i in range(3, n, 9):
        origins[i] = centre[i] + half[i] * torch.tensor([1.5, 0.2, 0.0]) - torch.tensor([0.0, 0.0, 10.0])
        dirs[i] = torch.tensor([-0.0, 0.0, 1.0])  # outside the x slab: t1 = t2 = -inf there, a miss
    origins[4::9] = centre[4::9]  # origins inside the box: t = 0
    # flat boxes (a quad: zero thickness in y) crossed at an angle
    for i in range(5, n, 9):
        hi[i, 1] = lo[i, 1]
        origins[i] = centre[i] - torch.tensor([0.5, 8.0, 0.3])
        dirs[i] = (centre[i] - origins[i]) / (centre[i] - origins[i]).norm()
    origins[6::9] = centre[6::9] + torch.tensor([0.0, 0.0, 30.0])  # a box behind the ray
    dirs[6::9] = torch.tensor([0.0, 0.6, 0.8])
    rays = torch.cat([origins, dirs], dim=1)  # packed (N, 6) rays: origin and direction are views
    return [rays[:, :3], rays[:, 3:], lo, hi]


def get_init_inputs():
    return []
