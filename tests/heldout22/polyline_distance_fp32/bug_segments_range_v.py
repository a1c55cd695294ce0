"""Triton point-to-polyline distance: grid (blocks of 256 points (P = 1000: tail 232), batch item);
every program loops over the V - 1 segments of its item's polyline, the two vertices of segment s
loaded as scalars at 2 s .. 2 s + 3 of the item's V (x, y) pairs, and keeps a running minimum of
the squared distance per point; the square root is taken once at the end.

The squared distance to one segment is a `@triton.jit` helper: t = (p - a).(b - a) / |b - a|^2
with the denominator replaced by 1 when it is 0 (a zero-length segment gives t = 0), clamped into
[0, 1], then |(p - a) - t (b - a)|^2. Points are read at 2 (b P + p) and 2 (b P + p) + 1;
out (B, P) fp32.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def segment_dist2(px, py, ax, ay, bx, by):
    abx = bx - ax
    aby = by - ay
    apx = px - ax
    apy = py - ay
    den = abx * abx + aby * aby
    t = (apx * abx + apy * aby) / tl.where(den > 0, den, 1.0)
    t = tl.minimum(tl.maximum(t, 0.0), 1.0)
    dx = apx - t * abx
    dy = apy - t * aby
    return dx * dx + dy * dy


@triton.jit
def polyline_dist_kernel(pts_ptr, poly_ptr, out_ptr, P, V, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    b = tl.program_id(1)
    m = offs < P
    px = tl.load(pts_ptr + 2 * (b * P + offs), mask=m, other=0.0)
    py = tl.load(pts_ptr + 2 * (b * P + offs) + 1, mask=m, other=0.0)
    base = poly_ptr + b * V * 2
    best = tl.full([BLOCK], float("inf"), dtype=tl.float32)
    for s in range(0, V):
        ax = tl.load(base + 2 * s)
        ay = tl.load(base + 2 * s + 1)
        bx = tl.load(base + 2 * s + 2)
        by = tl.load(base + 2 * s + 3)
        best = tl.minimum(best, segment_dist2(px, py, ax, ay, bx, by))
    tl.store(out_ptr + b * P + offs, tl.sqrt(best), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pts, poly):
        pts = pts.contiguous()
        poly = poly.contiguous()
        B, P, _ = pts.shape
        V = poly.shape[1]
        out = torch.empty((B, P), dtype=pts.dtype, device=pts.device)
        BLOCK = 256
        grid = (triton.cdiv(P, BLOCK), B)
        polyline_dist_kernel[grid](pts, poly, out, P, V, BLOCK=BLOCK)
        return out
