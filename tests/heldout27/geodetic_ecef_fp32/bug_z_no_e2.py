"""Triton geodetic -> ECEF conversion. One program per BLOCK = 256 points (P 3000: tail 184): latitude and longitude
loaded through the point and coordinate strides passed from the host (a transposed (2, P) array) and h through its
stride (a field of wider records), degrees converted to radians, the prime-vertical radius N from sin lat, then
X, Y, Z; three stores per point into the contiguous (P, 3) output.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ecef_kernel(ll_ptr, h_ptr, out_ptr, P, s_p, s_c, s_h, a, e2, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < P
    lat = tl.load(ll_ptr + i * s_p + 0 * s_c, mask=m, other=0.0) * (math.pi / 180.0)
    lon = tl.load(ll_ptr + i * s_p + 1 * s_c, mask=m, other=0.0) * (math.pi / 180.0)
    h = tl.load(h_ptr + i * s_h, mask=m, other=0.0)
    sl = tl.sin(lat)
    cl = tl.cos(lat)
    n = a / tl.sqrt(1.0 - e2 * sl * sl)
    x = (n + h) * cl * tl.cos(lon)
    y = (n + h) * cl * tl.sin(lon)
    z = (n + h) * sl
    tl.store(out_ptr + i * 3 + 0, x, mask=m)
    tl.store(out_ptr + i * 3 + 1, y, mask=m)
    tl.store(out_ptr + i * 3 + 2, z, mask=m)


class ModelNew(nn.Module):
    def __init__(self, a, inv_f):
        super().__init__()
        self.a = a
        self.inv_f = inv_f

    def forward(self, latlon, h):
        P = latlon.shape[0]
        f = 1.0 / self.inv_f
        out = torch.empty(P, 3, dtype=torch.float32, device=latlon.device)
        BLOCK = 256
        ecef_kernel[(triton.cdiv(P, BLOCK),)](
            latlon,
            h,
            out,
            P,
            latlon.stride(0),
            latlon.stride(1),
            h.stride(0),
            self.a,
            f * (2.0 - f),
            BLOCK=BLOCK,
        )
        return out
