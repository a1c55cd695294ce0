"""BatchNorm2d forward in training mode (batch statistics), `F.batch_norm(training=True)`.

x (N, C, H, W) fp16; per channel c the mean and the biased variance over (N, H, W) (the
non-contiguous axes 0, 2, 3), y = (x - mean) / sqrt(var + 1e-5) * weight[c] + bias[c], computed
in fp32 (fp64 for the golden) and rounded once to fp16. Channels sit around offsets up to +-200
with scales 0.5 .. 8, and channel 3 is dead (all zeros, as after a ReLU that never fires: var 0).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

N = 6
C = 10
H = 13
W = 11
EPS = 1e-5


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        y = F.batch_norm(x.to(ct), None, None, weight.to(ct), bias.to(ct), training=True, eps=EPS)
        return y.to(x.dtype)


def get_inputs():
    offset = torch.empty(1, C, 1, 1).uniform_(-200.0, 200.0)
    scale = torch.exp(torch.empty(1, C, 1, 1).uniform_(-0.7, 2.1))
    x = offset + scale * torch.randn(N, C, H, W)
    x[:, 3] = 0.0
    weight = 1.0 + 0.2 * torch.randn(C)
    bias = 0.1 * torch.randn(C)
    return [x.half(), weight.half(), bias.half()]


def get_init_inputs():
    return []
