import torch
import torch.nn as nn

R, C = 37, 300


class Model(nn.Module):
    def forward(self, x):
        return x / torch.sqrt((x * x).mean(dim=1, keepdim=True) + 1e-5)


def get_inputs():
    return [torch.randn(R, C) * 3]


def get_init_inputs():
    return []
