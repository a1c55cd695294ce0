"""One forward-Euler step of the second-order MUSCL finite-volume scheme for linear advection u_t + a u_x = 0 on a
periodic 1-D grid, one velocity a per row: slopes s_i = minmod(u_i - u_{i-1}, u_{i+1} - u_i) (minmod(p, q) = the
argument of smaller magnitude when both have the same sign, else 0), interface states u_i + s_i / 2 (left) and
u_{i+1} - s_{i+1} / 2 (right), the upwind flux a u_left where a > 0 and a u_right otherwise, and
u_i - C (F_{i+1/2} - F_{i-1/2}) with the Courant factor C = dt / dx (0.8 from the constructor). u (R, L) fp32 is the
transpose of an (L, R) buffer; vel (R,) fp32; one output (R, L).
"""

import torch
import torch.nn as nn

ROWS = 24
CELLS = 1000


def _minmod(p, q):
    return torch.where(p * q > 0, torch.where(p.abs() < q.abs(), p, q), torch.zeros_like(p))


class Model(nn.Module):
    def __init__(self, courant):
        super().__init__()
        self.courant = courant

    def forward(self, u, vel):
        s = _minmod(u - u.roll(1, 1), u.roll(-1, 1) - u)
        ul = u + 0.5 * s
        ur = u.roll(-1, 1) - 0.5 * s.roll(-1, 1)
        a = vel[:, None]
        flux = torch.where(a > 0, a * ul, a * ur)  # at i + 1/2
        return u - self.courant * (flux - flux.roll(1, 1))


def get_inputs():
    R, L = ROWS, CELLS
    x = torch.arange(L, dtype=torch.float32) / L
    u = torch.sin(2 * torch.pi * (x[None, :] * torch.randint(1, 6, (R, 1)) + torch.rand(R, 1)))
    u = u + 0.3 * torch.randn(R, L)
    u[min(1, R - 1)] = torch.where(x < 0.37, 2.0, -1.0)  # a step (two discontinuities with the wrap)
    u[min(2, R - 1)] = 5.0  # constant: no flux difference
    u[min(3, R - 1), ::3] = 4.0  # spikes every third cell
    u[R - 1, L - 2 :] = 10.0  # a bump on the wrapped edge
    u[R - 1, :2] = -10.0
    vel = torch.rand(R) * 2.0 - 1.0
    vel[min(4, R - 1)] = 0.0  # no motion
    vel[R - 1] = -1.0
    vel[0] = 1.0
    buf = torch.empty(L, R)
    buf.copy_(u.t())
    return [buf.t(), vel]


def get_init_inputs():
    return [0.8]
