"""Triton face normals: one program per block of 128 faces of the flattened (B F) face list (1400: tail 120);
face f of mesh b = f // F reads its three int64 vertex ids at 3 f .. 3 f + 2, and vertex v of that mesh
at 3 (b V + v); the cross product, |n| and both outputs in fp32, the inverse length 0 where |n| == 0.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def face_normals_kernel(v_ptr, f_ptr, unit_ptr, area_ptr, total, F, V, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    base = (offs // F) * V
    i0 = (tl.load(f_ptr + offs * 3, mask=m, other=0) + base) * 3
    i1 = (tl.load(f_ptr + offs * 3 + 1, mask=m, other=0) + base) * 3
    i2 = (tl.load(f_ptr + offs * 3 + 2, mask=m, other=0) + base) * 3
    ax = tl.load(v_ptr + i0, mask=m, other=0.0)
    ay = tl.load(v_ptr + i0 + 1, mask=m, other=0.0)
    az = tl.load(v_ptr + i0 + 2, mask=m, other=0.0)
    e1x = tl.load(v_ptr + i1, mask=m, other=0.0) - ax
    e1y = tl.load(v_ptr + i1 + 1, mask=m, other=0.0) - ay
    e1z = tl.load(v_ptr + i1 + 2, mask=m, other=0.0) - az
    e2x = tl.load(v_ptr + i2, mask=m, other=0.0) - ax
    e2y = tl.load(v_ptr + i2 + 1, mask=m, other=0.0) - ay
    e2z = tl.load(v_ptr + i2 + 2, mask=m, other=0.0) - az
    nx = e1y * e2z - e1z * e2y
    ny = e1x * e2z - e1z * e2x
    nz = e1x * e2y - e1y * e2x
    length = tl.sqrt(nx * nx + ny * ny + nz * nz)
    inv = tl.where(length > 0.0, 1.0 / tl.maximum(length, 1e-30), 0.0)
    tl.store(unit_ptr + offs * 3, nx * inv, mask=m)
    tl.store(unit_ptr + offs * 3 + 1, ny * inv, mask=m)
    tl.store(unit_ptr + offs * 3 + 2, nz * inv, mask=m)
    tl.store(area_ptr + offs, 0.5 * length, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, verts, faces):
        verts = verts.contiguous()
        faces = faces.contiguous()
        B, V, _ = verts.shape
        F = faces.shape[1]
        unit = torch.empty((B, F, 3), dtype=verts.dtype, device=verts.device)
        area = torch.empty((B, F), dtype=verts.dtype, device=verts.device)
        BLOCK = 128
        grid = (triton.cdiv(B * F, BLOCK),)
        face_normals_kernel[grid](verts, faces, unit, area, B * F, F, V, BLOCK=BLOCK)
        return unit, area
