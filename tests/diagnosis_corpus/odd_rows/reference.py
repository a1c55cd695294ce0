import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x + 1.0


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
