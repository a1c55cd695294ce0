"""Distance from every point to a polyline (map matching, path following, lane keeping).

pts (B, P, 2) fp32 and poly (B, V, 2) fp32, both interleaved (x, y): batch item b has an open
polyline of V vertices (V - 1 segments, some of zero length) and P query points; out (B, P) fp32
is the Euclidean distance from each point to the nearest point of its polyline. Per segment a -> b
the projection parameter t = (p - a).(b - a) / |b - a|^2 is clamped into [0, 1] (t = 0 for a
zero-length segment) and the distance is |(p - a) - t (b - a)|.
"""

import torch
import torch.nn as nn

BATCH = 3
POINTS = 1000
VERTICES = 17


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pts, poly):
        a = poly[:, :-1, None, :].transpose(1, 2)  # (B, 1, S, 2)
        ab = (poly[:, 1:, :] - poly[:, :-1, :])[:, None]  # (B, 1, S, 2)
        ap = pts[:, :, None, :] - a  # (B, P, S, 2)
        den = (ab * ab).sum(-1)
        dot = (ap * ab).sum(-1)
        t = torch.where(den > 0, dot / torch.where(den > 0, den, torch.ones_like(den)), torch.zeros_like(dot))
        t = t.clamp(0.0, 1.0)
        d = ap - t[..., None] * ab
        return torch.sqrt((d * d).sum(-1)).min(dim=-1).values


def get_inputs():
    steps = torch.randn(BATCH, VERTICES, 2)
    steps[:, 0] = 0.0
    poly = torch.cumsum(steps, dim=1)
    poly[:, VERTICES // 2] = poly[:, VERTICES // 2 - 1]  # a zero-length segment
    lo = poly.amin(dim=1, keepdim=True) - 2.0
    hi = poly.amax(dim=1, keepdim=True) + 2.0
    pts = lo + (hi - lo) * torch.rand(BATCH, POINTS, 2)
    pts[:, :VERTICES] = poly  # points on the vertices
    # points far beyond both ends, along the first and last segments
    pts[:, VERTICES] = poly[:, 0] - 3.0 * (poly[:, 1] - poly[:, 0])
    pts[:, VERTICES + 1] = poly[:, -1] + 3.0 * (poly[:, -1] - poly[:, -2])
    return [pts, poly]


def get_init_inputs():
    return []
