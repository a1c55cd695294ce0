"""int8 x int8 GEMM with an exact int32 accumulator, requantised to int8 per output column.

a is (96, 160) int8, w is (72, 160) int8 (nn.Linear weight layout), scale is (72,) fp32 (about 1/4000 .. 1/1300).
out = clamp(round_half_even((a @ w.T) * scale[None, :]), -128, 127) as int8, shape (96, 72).
The int32 product is exact; the fp32 multiply by scale and round-to-nearest-even follow.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        acc = a.to(torch.int32) @ w.to(torch.int32).T
        y = torch.round(acc.to(torch.float32) * scale[None, :])
        return y.clamp(-128, 127).to(torch.int8)


def get_inputs():
    a = torch.randint(-128, 128, (96, 160), dtype=torch.int8)
    w = torch.randint(-128, 128, (72, 160), dtype=torch.int8)
    scale = torch.rand(72, dtype=torch.float32) * 5e-4 + 2.5e-4
    return [a, w, scale]


def get_init_inputs():
    return []
