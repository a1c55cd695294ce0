"""Batch norm in inference mode with running statistics, as torch.nn.functional.batch_norm(training=False).

x is (8, 24, 17, 19) bf16 (planes of 323) with features around 50 +- 1; running_mean (around 50),
running_var (0.5 to 2), weight and bias are (24,) fp32; eps = 1e-5. The reference computes in at
least fp32 (float64 for the golden) and returns x's dtype.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, running_mean, running_var, weight, bias):
        dt = torch.promote_types(x.dtype, torch.float32)
        y = F.batch_norm(
            x.to(dt), running_mean.to(dt), running_var.to(dt), weight.to(dt), bias.to(dt), training=False, eps=1e-5
        )
        return y.to(x.dtype)


def get_inputs():
    C = 24
    x = (torch.randn(8, C, 17, 19) + 50.0).to(torch.bfloat16)
    running_mean = 50.0 + 0.3 * torch.randn(C)
    running_var = 0.5 + 1.5 * torch.rand(C)
    weight = 1.0 + 0.2 * torch.randn(C)
    bias = 0.1 * torch.randn(C)
    return [x, running_mean, running_var, weight, bias]


def get_init_inputs():
    return []
