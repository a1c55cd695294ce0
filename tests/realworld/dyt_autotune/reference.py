import torch
import torch.nn as nn


class Model(nn.Module):
    """Dynamic Tanh (DyT): gamma * tanh(alpha * x) + beta."""

    def __init__(self, hidden_size, init_alpha):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1) * init_alpha)
        self.gamma = nn.Parameter(1.0 + 0.1 * torch.randn(hidden_size))
        self.beta = nn.Parameter(0.1 * torch.randn(hidden_size))

    def forward(self, x):
        return self.gamma * torch.tanh(self.alpha * x) + self.beta


def get_inputs():
    return [torch.randn(24, 200)]


def get_init_inputs():
    return [200, 0.5]
