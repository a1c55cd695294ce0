"""Triton shoelace areas of ragged polygons: one program per BLOCK_P = 16 polygons (P = 300: tail
12), the vertices walked in (polygons x BLOCK_V = 16 vertex lanes) tiles up to the largest vertex
count (from the host; 40: tail 8).

Polygon p's vertex range [offsets[p], offsets[p + 1]) comes from the int64 offsets; lane k pairs
vertex start + k with start + k + 1, or with the first vertex for the last one (the closing edge).
Both are read through the vertex stride passed from the host (x at +0, y at +1) and taken relative
to the first vertex v_0 (a `@triton.jit` helper); the crosses of the real lanes go into an fp32
lane accumulator, reduced once and halved.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _load_rel(v_ptr, idx, stride_v, mask, x0, y0):
    x = tl.load(v_ptr + idx * stride_v, mask=mask, other=0.0) - x0
    y = tl.load(v_ptr + idx * stride_v + 1, mask=mask, other=0.0) - y0
    return x, y


@triton.jit
def shoelace_kernel(v_ptr, off_ptr, out_ptr, P, max_n, stride_v, BLOCK_P: tl.constexpr, BLOCK_V: tl.constexpr):
    polys = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    pm = polys < P
    start = tl.load(off_ptr + polys, mask=pm, other=0)
    cnt = tl.load(off_ptr + polys + 1, mask=pm, other=0) - start
    has = cnt > 0
    x0 = tl.load(v_ptr + start * stride_v, mask=has, other=0.0)
    y0 = tl.load(v_ptr + start * stride_v + 1, mask=has, other=0.0)
    lanes = tl.arange(0, BLOCK_V)
    acc = tl.zeros([BLOCK_P, BLOCK_V], dtype=tl.float32)
    for k0 in range(0, max_n, BLOCK_V):
        k = k0 + lanes[None, :]
        m = k < cnt[:, None]
        i = start[:, None] + k
        j = tl.where(k + 1 < cnt[:, None], i + 1, start[:, None])
        xi, yi = _load_rel(v_ptr, i, stride_v, m, x0[:, None], y0[:, None])
        xj, yj = _load_rel(v_ptr, j, stride_v, m, x0[:, None], y0[:, None])
        acc += tl.where(m, xi * yj - xj * yi, 0.0)
    area = 0.5 * tl.sum(acc, axis=1)
    tl.store(out_ptr + polys, area, mask=pm)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, verts, offsets):
        offsets = offsets.contiguous()
        P = offsets.numel() - 1
        out = torch.empty(P, dtype=verts.dtype, device=verts.device)
        max_n = int((offsets[1:] - offsets[:-1]).max()) if P > 0 else 0
        BLOCK_P, BLOCK_V = 16, 16
        grid = (triton.cdiv(P, BLOCK_P),)
        shoelace_kernel[grid](verts, offsets, out, P, max_n, verts.stride(0), BLOCK_P=BLOCK_P, BLOCK_V=BLOCK_V)
        return out
