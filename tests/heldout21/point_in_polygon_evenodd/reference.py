"""Point-in-polygon by the even-odd (crossing number) rule, as GIS tools and matplotlib's
`Path.contains_points` do, for a batch of simple closed non-convex polygons.

pts (B, P, 2) fp32 (x, y); poly (B, V, 2) fp32 vertices, edge i joining vertex i and vertex (i + 1) % V;
out (B, P) int32: 1 where the ray from the point towards +x crosses an odd number of edges, an edge (a, b)
being crossed when (a_y > p_y) != (b_y > p_y) and p_x < a_x + (p_y - a_y) (b_x - a_x) / (b_y - a_y).
"""

import math

import torch
import torch.nn as nn

BATCH = 3
POINTS = 2000
VERTS = 13


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pts, poly):
        a = poly[:, None, :, :]
        b = torch.roll(poly, shifts=-1, dims=1)[:, None, :, :]
        px = pts[:, :, None, 0]
        py = pts[:, :, None, 1]
        ax, ay, bx, by = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
        straddle = (ay > py) != (by > py)
        xcross = ax + (py - ay) * (bx - ax) / (by - ay)
        crossed = straddle & (px < xcross)
        return (crossed.sum(dim=-1) % 2).to(torch.int32)


def get_inputs():
    # star-shaped polygons: sorted random angles, radii 0.35 .. 1 around a random centre
    ang = torch.sort(2 * math.pi * torch.rand(BATCH, VERTS), dim=1).values
    rad = 0.35 + 0.65 * torch.rand(BATCH, VERTS)
    centre = 0.2 * torch.randn(BATCH, 1, 2)
    poly = centre + rad[..., None] * torch.stack([torch.cos(ang), torch.sin(ang)], dim=-1)
    pts = 2.4 * torch.rand(BATCH, POINTS, 2) - 1.2
    return [pts, poly]


def get_init_inputs():
    return []
