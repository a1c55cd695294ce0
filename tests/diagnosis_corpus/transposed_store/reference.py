import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(128, 96), torch.rand(96, 128)]


def get_init_inputs():
    return []

