import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """GeGLU with the tanh approximation of GELU: gelu_tanh(a) * b."""

    def forward(self, a, b):
        return F.gelu(a, approximate="tanh") * b


def get_inputs():
    return [torch.randn(32, 384), torch.randn(32, 384)]


def get_init_inputs():
    return []
