"""Triton quaternion rigid transform: one program per 256 points of the flattened (B N) points
(1500: tail 220).

Point i belongs to sample b = i // N; its quaternion (w, x, y, z) = quats[4 b : 4 b + 4] is
normalised by 1 / sqrt(w^2 + x^2 + y^2 + z^2), and the point p (at 3 i, 3 i + 1, 3 i + 2) is
rotated as p + 2 (w (u x p) + u x (u x p)) with u = (x, y, z), then translated by trans[3 b : 3 b + 3].
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def quat_rotate_kernel(p_ptr, q_ptr, t_ptr, out_ptr, total, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    b = offs // N
    qw = tl.load(q_ptr + b * 4 + 0, mask=mask, other=1.0)
    qx = tl.load(q_ptr + b * 4 + 1, mask=mask, other=0.0)
    qy = tl.load(q_ptr + b * 4 + 2, mask=mask, other=0.0)
    qz = tl.load(q_ptr + b * 4 + 3, mask=mask, other=0.0)
    inv = 1.0 / tl.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
    qw, qx, qy, qz = qw * inv, qx * inv, qy * inv, qz * inv
    px = tl.load(p_ptr + offs * 3 + 0, mask=mask, other=0.0)
    py = tl.load(p_ptr + offs * 3 + 1, mask=mask, other=0.0)
    pz = tl.load(p_ptr + offs * 3 + 2, mask=mask, other=0.0)
    cx = qy * pz - qz * py
    cy = qz * px - qx * pz
    cz = qx * py - qy * px
    dx = qy * cz - qz * cy
    dy = qz * cx - qx * cz
    dz = qx * cy - qy * cx
    ox = px + 2.0 * (qw * cx + dx) + tl.load(t_ptr + b * 3 + 0, mask=mask, other=0.0)
    oy = py + 2.0 * (qw * cy + dy) + tl.load(t_ptr + b * 3 + 1, mask=mask, other=0.0)
    oz = pz + 2.0 * (qw * cz + dz) + tl.load(t_ptr + b * 3 + 2, mask=mask, other=0.0)
    tl.store(out_ptr + offs * 3 + 0, ox, mask=mask)
    tl.store(out_ptr + offs * 3 + 1, oy, mask=mask)
    tl.store(out_ptr + offs * 3 + 2, oz, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, points, quats, trans):
        points, quats, trans = points.contiguous(), quats.contiguous(), trans.contiguous()
        B, N, _ = points.shape
        out = torch.empty_like(points)
        total = B * N
        BLOCK = 256
        grid = (triton.cdiv(total, BLOCK),)
        quat_rotate_kernel[grid](points, quats, trans, out, total, N, BLOCK=BLOCK)
        return out
