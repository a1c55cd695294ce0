"""Per-sample mean squared error between two fp16 tensors, fp32 result.

x and y are (129, 1000) fp16; out is (129,) with out[r] = mean_j (x[r, j] - y[r, j])^2,
computed in (at least) fp32 (torch.promote_types, so the golden stays float64).
"""

import torch
import torch.nn as nn

BATCH = 129
FEATURES = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        dt = torch.promote_types(x.dtype, torch.float32)
        d = x.to(dt) - y.to(dt)
        return (d * d).mean(dim=1)


def get_inputs():
    x = torch.randn(BATCH, FEATURES, dtype=torch.float16)
    y = torch.randn(BATCH, FEATURES, dtype=torch.float16)
    return [x, y]


def get_init_inputs():
    return []
