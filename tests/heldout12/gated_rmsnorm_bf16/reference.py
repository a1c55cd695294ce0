"""Gated RMSNorm (as in Mamba-2): y = x * silu(z), out = y / sqrt(mean(y^2) + EPS) * weight.

x and z are (TOKENS, HIDDEN) bf16, the gate applied before the norm; weight (HIDDEN,) is a bf16
module parameter around 1. The mean is over the last dim; computed in fp32 (fp64 when the inputs
are), returned in bf16.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 97
HIDDEN = 640
EPS = 1e-5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(HIDDEN)).to(torch.bfloat16))

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        y = x.to(ct) * F.silu(z.to(ct))
        rstd = torch.rsqrt(y.pow(2).mean(dim=-1, keepdim=True) + EPS)
        return (y * rstd * self.weight.to(ct)).to(x.dtype)


def get_inputs():
    x = torch.randn(TOKENS, HIDDEN).to(torch.bfloat16)
    z = (2.0 * torch.randn(TOKENS, HIDDEN)).to(torch.bfloat16)
    return [x, z]


def get_init_inputs():
    return []
