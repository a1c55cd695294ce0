"""SwiGLU on an interleaved gate/up projection, in bfloat16.

x is (TOKENS, 2 * HIDDEN) bf16 whose columns alternate gate and up values: gate h is column 2h,
up h is column 2h + 1. out[t, h] = silu(x[t, 2h]) * x[t, 2h + 1], a (TOKENS, HIDDEN) bf16
tensor, computed in (at least) fp32 and rounded once.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 300
HIDDEN = 200


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        gate = x[:, 0::2].to(ct)
        up = x[:, 1::2].to(ct)
        return (F.silu(gate) * up).to(x.dtype)


def get_inputs():
    x = torch.randn(TOKENS, 2 * HIDDEN, dtype=torch.bfloat16)
    return [x]


def get_init_inputs():
    return []
