"""Classical RK4 integration of a batch of Lorenz systems, per-system rho.

state (N, 3) fp32 (x, y, z interleaved), rho (N,) fp32 in [20, 32]; sigma = 10, beta = 8 / 3,
dt = 0.01 and STEPS = 20 steps (constructor arguments). f(x, y, z) = (sigma (y - x),
x (rho - z) - y, x y - beta z); k1 = f(s), k2 = f(s + dt/2 k1), k3 = f(s + dt/2 k2),
k4 = f(s + dt k3), s += dt/6 (k1 + 2 k2 + 2 k3 + k4). Returns the final state (N, 3) fp32.
"""

import torch
import torch.nn as nn

SYSTEMS = 1000
STEPS = 20
DT = 0.01
SIGMA = 10.0
BETA = 8.0 / 3.0


class Model(nn.Module):
    def __init__(self, steps, dt, sigma, beta):
        super().__init__()
        self.steps = steps
        self.dt = dt
        self.sigma = sigma
        self.beta = beta

    def _rhs(self, x, y, z, rho):
        return self.sigma * (y - x), x * (rho - z) - y, x * y - self.beta * z

    def forward(self, state, rho):
        x, y, z = state[:, 0], state[:, 1], state[:, 2]
        h = self.dt
        for _ in range(self.steps):
            k1x, k1y, k1z = self._rhs(x, y, z, rho)
            k2x, k2y, k2z = self._rhs(x + 0.5 * h * k1x, y + 0.5 * h * k1y, z + 0.5 * h * k1z, rho)
            k3x, k3y, k3z = self._rhs(x + 0.5 * h * k2x, y + 0.5 * h * k2y, z + 0.5 * h * k2z, rho)
            k4x, k4y, k4z = self._rhs(x + h * k3x, y + h * k3y, z + h * k3z, rho)
            x = x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
            y = y + h / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)
            z = z + h / 6 * (k1z + 2 * k2z + 2 * k3z + k4z)
        return torch.stack([x, y, z], dim=1)


def get_inputs():
    state = torch.randn(SYSTEMS, 3) * torch.tensor([8.0, 8.0, 6.0]) + torch.tensor([0.0, 0.0, 25.0])
    rho = 20.0 + 12.0 * torch.rand(SYSTEMS)
    return [state, rho]


def get_init_inputs():
    return [STEPS, DT, SIGMA, BETA]
