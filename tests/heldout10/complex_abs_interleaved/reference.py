"""Magnitude of complex numbers stored interleaved as (..., 2) real / imaginary pairs, fp32.

x is (BATCH, LENGTH, 2) fp32; out[b, n] = |x[b, n, 0] + i x[b, n, 1]| = hypot(re, im), as
torch.view_as_complex(x).abs() computes it: no overflow or underflow in the intermediate squares,
an infinite part gives +inf (even with a NaN in the other part), a NaN part otherwise gives NaN.
"""

import torch
import torch.nn as nn

BATCH = 4
LENGTH = 3001


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_complex(x.contiguous()).abs()


def get_inputs():
    x = torch.randn(BATCH, LENGTH, 2, dtype=torch.float32)
    return [x]


def get_init_inputs():
    return []
