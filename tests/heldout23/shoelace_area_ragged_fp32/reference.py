"""Signed areas of ragged polygons by the shoelace formula (GIS / vector-map preprocessing: the
polygons of a layer packed into one vertex array, CSR offsets per polygon).

verts (V, 2) fp32 (x, y), offsets (P + 1,) int64: polygon p owns vertices offsets[p] ..
offsets[p + 1] - 1, closed back to its first vertex. area = 0.5 sum_i cross(v_i - v_0, v_{i+1} - v_0)
(counter-clockwise positive), the coordinates taken relative to the polygon's first vertex so that
polygons far from the origin do not cancel; polygons with fewer than three vertices have area 0.
out (P,) fp32.
"""

import math

import torch
import torch.nn as nn

NUM_POLYS = 300
MAX_VERTS = 40


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, verts, offsets):
        P = offsets.numel() - 1
        counts = offsets[1:] - offsets[:-1]
        poly = torch.repeat_interleave(torch.arange(P, device=verts.device), counts)
        first = offsets[:-1][poly]
        nxt = torch.arange(verts.shape[0], device=verts.device) + 1
        nxt = torch.where(nxt == offsets[1:][poly], first, nxt)
        rel = verts - verts[first]
        cross = rel[:, 0] * rel[nxt, 1] - rel[nxt, 0] * rel[:, 1]
        out = torch.zeros(P, dtype=verts.dtype, device=verts.device)
        out.index_add_(0, poly, cross)
        return 0.5 * out


def get_inputs():
    counts = torch.randint(3, MAX_VERTS + 1, (NUM_POLYS,))
    counts[0] = 0  # empty polygon
    counts[1] = 1  # a single point
    counts[2] = 2  # a segment
    counts[3] = MAX_VERTS
    counts[4] = 3
    counts[9::13] = 0  # more empty polygons scattered through the layer
    offsets = torch.zeros(NUM_POLYS + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(counts, 0)
    pieces = []
    for p in range(NUM_POLYS):
        n = int(counts[p])
        ang = torch.sort(torch.rand(n) * 2 * math.pi).values
        rad = 0.5 + 4.5 * torch.rand(n)
        if p % 5 == 1:
            centre = 2.0e4 * (torch.rand(2) - 0.5)  # far from the origin
        else:
            centre = 200.0 * (torch.rand(2) - 0.5)
        pts = torch.stack([centre[0] + rad * torch.cos(ang), centre[1] + rad * torch.sin(ang)], dim=1)
        if p % 3 == 2:
            pts = pts.flip(0)  # clockwise: negative area
        pieces.append(pts)
    verts = torch.cat(pieces, dim=0).float()
    return [verts, offsets]


def get_init_inputs():
    return []
