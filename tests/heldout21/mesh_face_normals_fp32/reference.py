"""Per-face unit normals and areas of a batch of triangle meshes (flat shading, mesh processing):
n = (v1 - v0) x (v2 - v0) of the face's three vertices, gathered through int64 vertex indices of the same
mesh; area = |n| / 2; unit = n / |n|, 0 for a degenerate face (|n| == 0, e.g. a repeated vertex).

verts (B, V, 3) fp32, faces (B, F, 3) int64 in [0, V); outputs unit (B, F, 3) fp32 and area (B, F) fp32.
"""

import torch
import torch.nn as nn

BATCH = 2
VERTS = 400
FACES = 700


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, verts, faces):
        bidx = torch.arange(verts.shape[0], device=verts.device)[:, None]
        v0 = verts[bidx, faces[..., 0]]
        v1 = verts[bidx, faces[..., 1]]
        v2 = verts[bidx, faces[..., 2]]
        n = torch.cross(v1 - v0, v2 - v0, dim=-1)
        length = torch.sqrt((n * n).sum(dim=-1))
        unit = torch.where(length[..., None] > 0, n / length[..., None], torch.zeros_like(n))
        return unit, 0.5 * length


def get_inputs():
    verts = torch.randn(BATCH, VERTS, 3)
    verts[1] = 3.0 * verts[1] + 1.0
    # three distinct vertices per face (a face with i1 == i2 is degenerate only up to rounding)
    i0 = torch.randint(0, VERTS, (BATCH, FACES))
    d1 = torch.randint(1, VERTS, (BATCH, FACES))
    d2 = torch.randint(1, VERTS - 1, (BATCH, FACES))
    d2 = d2 + (d2 >= d1).to(d2.dtype)
    faces = torch.stack([i0, (i0 + d1) % VERTS, (i0 + d2) % VERTS], dim=-1)
    faces[:, ::25, 2] = faces[:, ::25, 0]  # degenerate faces: a repeated vertex
    return [verts, faces]


def get_init_inputs():
    return []
