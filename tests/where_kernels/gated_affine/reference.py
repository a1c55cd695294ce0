import torch
import torch.nn as nn

R, C = 37, 53


class Model(nn.Module):
    """(x * w + b) * sigmoid(g), all (R, C)."""

    def forward(self, x, w, b, g):
        return (x * w + b) * torch.sigmoid(g)


def get_inputs():
    return [torch.randn(R, C), torch.randn(R, C), torch.randn(R, C), torch.randn(R, C)]


def get_init_inputs():
    return []
