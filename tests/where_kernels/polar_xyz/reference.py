import torch
import torch.nn as nn

N = 700
FLAT = 0.0067


class Model(nn.Module):
    """Points on a flattened sphere: angles (theta, phi) per point and a radius, to (x, y, z)."""

    def forward(self, ang: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        t, p = ang[:, 0], ang[:, 1]
        x = r * torch.cos(t) * torch.cos(p)
        y = r * torch.cos(t) * torch.sin(p)
        z = r * (1.0 - FLAT) * torch.sin(t)
        return torch.stack([x, y, z], dim=1)


def get_inputs():
    return [torch.rand(N, 2) * 3.0 - 1.5, torch.rand(N) + 1.0]


def get_init_inputs():
    return []
