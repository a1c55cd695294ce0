import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.sum(x, dim=1, keepdim=True)


def get_inputs():
    return [torch.rand(32, 256)]


def get_init_inputs():
    return []
