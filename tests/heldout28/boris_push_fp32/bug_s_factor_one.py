"""Triton Boris pusher. One program per BLOCK = 256 particles (N 3000: tail 184): the six state components loaded
through the particle / component strides passed from the host (a transposed structure-of-arrays buffer), E and B
through their row strides (B is a field slice of (N, 4) records), h = (q / m)[species] dt / 2 by a gather, the half
kick, the rotation v' = v- + v- x t and v+ = v- + v' x s with s = 2 t / (1 + |t|^2), the second half kick and the
position update, component by component in fp32; one contiguous (N, 6) output.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def boris_kernel(st_ptr, e_ptr, b_ptr, sp_ptr, qm_ptr, out_ptr, N, s_n, s_k, s_e, s_b, dt, BLOCK: tl.constexpr):
    n = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = n < N
    st = st_ptr + n * s_n
    x = tl.load(st, mask=m, other=0.0)
    y = tl.load(st + s_k, mask=m, other=0.0)
    z = tl.load(st + 2 * s_k, mask=m, other=0.0)
    vx = tl.load(st + 3 * s_k, mask=m, other=0.0)
    vy = tl.load(st + 4 * s_k, mask=m, other=0.0)
    vz = tl.load(st + 5 * s_k, mask=m, other=0.0)
    ex = tl.load(e_ptr + n * s_e, mask=m, other=0.0)
    ey = tl.load(e_ptr + n * s_e + 1, mask=m, other=0.0)
    ez = tl.load(e_ptr + n * s_e + 2, mask=m, other=0.0)
    bx = tl.load(b_ptr + n * s_b, mask=m, other=0.0)
    by = tl.load(b_ptr + n * s_b + 1, mask=m, other=0.0)
    bz = tl.load(b_ptr + n * s_b + 2, mask=m, other=0.0)
    sp = tl.load(sp_ptr + n, mask=m, other=0)
    h = tl.load(qm_ptr + sp, mask=m, other=0.0) * (0.5 * dt)
    mx = vx + h * ex
    my = vy + h * ey
    mz = vz + h * ez
    tx = h * bx
    ty = h * by
    tz = h * bz
    f = 1.0 / (1.0 + tx * tx + ty * ty + tz * tz)
    px = mx + (my * tz - mz * ty)
    py = my + (mz * tx - mx * tz)
    pz = mz + (mx * ty - my * tx)
    wx = mx + f * (py * tz - pz * ty) + h * ex
    wy = my + f * (pz * tx - px * tz) + h * ey
    wz = mz + f * (px * ty - py * tx) + h * ez
    o = out_ptr + n * 6
    tl.store(o, x + wx * dt, mask=m)
    tl.store(o + 1, y + wy * dt, mask=m)
    tl.store(o + 2, z + wz * dt, mask=m)
    tl.store(o + 3, wx, mask=m)
    tl.store(o + 4, wy, mask=m)
    tl.store(o + 5, wz, mask=m)


class ModelNew(nn.Module):
    def __init__(self, dt):
        super().__init__()
        self.dt = dt

    def forward(self, state, E, B, species, qm):
        N = state.shape[0]
        out = torch.empty(N, 6, dtype=torch.float32, device=state.device)
        BLOCK = 256
        boris_kernel[(triton.cdiv(N, BLOCK),)](
            state,
            E,
            B,
            species,
            qm,
            out,
            N,
            state.stride(0),
            state.stride(1),
            E.stride(0),
            B.stride(0),
            self.dt,
            BLOCK=BLOCK,
        )
        return out
