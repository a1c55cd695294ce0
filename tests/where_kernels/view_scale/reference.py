import torch
import torch.nn as nn

R = 37
C = 50
PAD = 8


class Model(nn.Module):
    """Each row of x scaled by a per-column weight, plus a per-column bias."""

    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return x * w + b


def get_inputs():
    wide = torch.randn(R, C + PAD)  # x is the first C columns of a wider buffer: row stride C + PAD
    return [wide[:, :C], torch.randn(C), torch.randn(C)]


def get_init_inputs():
    return []
