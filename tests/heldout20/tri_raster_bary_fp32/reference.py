"""Rasterise one colour-interpolated triangle per image (graphics: barycentric shading).

verts (B, 3, 2) fp32 vertex positions (x, y) in pixels, colors (B, 3, 3) fp32 (vertex, channel).
Pixel (h, w) is sampled at its centre p = (w + 0.5, h + 0.5). With the edge function
E(a, b, p) = (b.x - a.x)(p.y - a.y) - (b.y - a.y)(p.x - a.x) and area = E(v0, v1, v2), the
barycentric weights are w0 = E(v1, v2, p) / area, w1 = E(v2, v0, p) / area, w2 = E(v0, v1, p) / area
(either winding); a pixel is inside when all three are >= 0 and gets w0 c0 + w1 c1 + w2 c2, the
background is 0. Output (B, 3, H, W) fp32 planar (H, W constructor arguments); triangles may cross the image border.
"""

import math

import torch
import torch.nn as nn

BATCH = 4
HEIGHT = 37
WIDTH = 53


def _edge(ax, ay, bx, by, px, py):
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


class Model(nn.Module):
    def __init__(self, height, width):
        super().__init__()
        self.height = height
        self.width = width

    def forward(self, verts, colors):
        B = verts.shape[0]
        f = torch.promote_types(verts.dtype, torch.float32)
        v = verts.to(f)
        c = colors.to(f)
        ys = torch.arange(self.height, device=verts.device, dtype=f) + 0.5
        xs = torch.arange(self.width, device=verts.device, dtype=f) + 0.5
        py, px = torch.meshgrid(ys, xs, indexing="ij")
        out = torch.zeros(B, 3, self.height, self.width, dtype=f, device=verts.device)
        for b in range(B):
            (x0, y0), (x1, y1), (x2, y2) = v[b]
            area = _edge(x0, y0, x1, y1, x2, y2)
            w0 = _edge(x1, y1, x2, y2, px, py) / area
            w1 = _edge(x2, y2, x0, y0, px, py) / area
            w2 = _edge(x0, y0, x1, y1, px, py) / area
            inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
            col = w0[None] * c[b, 0, :, None, None] + w1[None] * c[b, 1, :, None, None]
            col = col + w2[None] * c[b, 2, :, None, None]
            out[b] = torch.where(inside[None], col, torch.zeros_like(col))
        return out


def get_inputs():
    cx = torch.rand(BATCH) * WIDTH
    cy = torch.rand(BATCH) * HEIGHT
    radius = 0.3 * min(HEIGHT, WIDTH) + 0.4 * min(HEIGHT, WIDTH) * torch.rand(BATCH)
    base = 2 * math.pi * torch.rand(BATCH, 1)
    steps = torch.tensor([0.0, 2.1, 4.2]) + 0.6 * torch.rand(BATCH, 3)
    sign = torch.where(torch.arange(BATCH) % 2 == 0, 1.0, -1.0)[:, None]
    ang = base + sign * steps
    verts = torch.stack(
        [cx[:, None] + radius[:, None] * torch.cos(ang), cy[:, None] + radius[:, None] * torch.sin(ang)], -1
    )
    colors = torch.rand(BATCH, 3, 3)
    return [verts.contiguous(), colors]


def get_init_inputs():
    return [HEIGHT, WIDTH]
