import torch
import torch.nn as nn

R = 37
C = 50
PAD = 8142


class Model(nn.Module):
    """Each row of x scaled by a per-column weight, plus a per-column bias."""

    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return x * w + b


def get_inputs():
    # x is the first C columns of a much wider buffer (row stride C + PAD): a view too sparse for re-runs to keep
    wide = torch.randn(R, C + PAD)
    return [wide[:, :C], torch.randn(C), torch.randn(C)]


def get_init_inputs():
    return []
