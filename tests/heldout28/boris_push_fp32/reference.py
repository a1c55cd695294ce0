"""One Boris push of charged particles (particle-in-cell codes): with h = (q / m)[species] dt / 2 per particle,
v- = v + h E, t = h B, s = 2 t / (1 + |t|^2), v' = v- + v- x t, v+ = v- + v' x s, v_new = v+ + h E and
x_new = x + v_new dt (dt 0.1 from the constructor). State (N, 6) fp32 (x, y, z, vx, vy, vz) is the transpose of a
(6, N) structure-of-arrays buffer; E (N, 3) fp32; B (N, 3) fp32 is the first three fields of (N, 4) records
(Bx, By, Bz, |B|); species (N,) int64 indexes q / m (S,) fp32; one output (N, 6): x_new, v_new.
"""

import torch
import torch.nn as nn

PARTICLES = 3000


class Model(nn.Module):
    def __init__(self, dt):
        super().__init__()
        self.dt = dt

    def forward(self, state, E, B, species, qm):
        ft = torch.promote_types(state.dtype, torch.float32)
        x, v = state[:, :3].to(ft), state[:, 3:].to(ft)
        E, B = E.to(ft), B.to(ft)
        h = (qm.to(ft)[species] * (0.5 * self.dt))[:, None]
        vm = v + h * E
        t = h * B
        s = 2.0 * t / (1.0 + (t * t).sum(1, keepdim=True))
        vp = vm + torch.linalg.cross(vm, t, dim=1)
        vn = vm + torch.linalg.cross(vp, s, dim=1) + h * E
        return torch.cat([x + vn * self.dt, vn], 1)


def get_inputs():
    N = PARTICLES
    soa = torch.randn(6, N)
    soa[:3] *= 50.0  # positions
    E = torch.randn(N, 3) * 2.0
    rec = torch.randn(N, 4) * 4.0
    E[: N // 8] = 0.0  # pure gyration
    rec[N // 8 : N // 4, :3] = 0.0  # no magnetic field: straight acceleration
    rec[N - 1, :3] = torch.tensor([0.0, 0.0, 40.0])  # a strong field along z
    rec[N - 2, :3] = torch.tensor([30.0, -30.0, 0.0])
    rec[:, 3] = rec[:, :3].norm(dim=1)
    species = torch.randint(0, 4, (N,))
    species[N - 3 :] = 3
    qm = torch.tensor([-1.0, 0.5, 2.0, -3.0])
    return [soa.t(), E, rec[:, :3], species, qm]


def get_init_inputs():
    return [0.1]
