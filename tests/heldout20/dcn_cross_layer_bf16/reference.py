"""DCN-v2 cross layer (Deep & Cross Network, recsys): x_next = x0 * (xl @ W^T + b) + xl.

x0, xl (B, D) bf16 (the layer's input and the base features), weight (D, D) bf16 in the nn.Linear
layout (out features x in features, not symmetric), bias (D,) fp32. The matmul is accumulated in
fp32, the gating product and the residual are fp32, one rounding to bf16.
"""

import torch
import torch.nn as nn

BATCH = 100
DIM = 72


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x0, xl, weight, bias):
        f = torch.promote_types(x0.dtype, torch.float32)
        z = xl.to(f) @ weight.to(f).T + bias.to(f)
        return (x0.to(f) * z + xl.to(f)).to(x0.dtype)


def get_inputs():
    x0 = torch.randn(BATCH, DIM).bfloat16()
    xl = torch.randn(BATCH, DIM).bfloat16()
    weight = (torch.randn(DIM, DIM) / DIM**0.5).bfloat16()
    bias = 0.5 * torch.randn(DIM)
    return [x0, xl, weight, bias]


def get_init_inputs():
    return []
