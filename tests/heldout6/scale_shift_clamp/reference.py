"""Per-channel scale and shift followed by a clamp, on an fp16 NCHW tensor.

x is (8, 16, 25, 27) fp16, scale and shift are (16,) fp16 (one per channel);
out = clamp(x * scale[c] + shift[c], lo, hi) with lo = -1.5, hi = 2.0 from the constructor, fp16.
NaN inputs stay NaN (torch.clamp propagates NaN).
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, lo: float, hi: float):
        super().__init__()
        self.lo = lo
        self.hi = hi

    def forward(self, x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
        y = x * scale.view(1, -1, 1, 1) + shift.view(1, -1, 1, 1)
        return torch.clamp(y, self.lo, self.hi)


def get_inputs():
    x = torch.randn(8, 16, 25, 27, dtype=torch.float16)
    scale = (1.0 + 0.5 * torch.randn(16)).to(torch.float16)
    shift = (0.5 * torch.randn(16)).to(torch.float16)
    return [x, scale, shift]


def get_init_inputs():
    return [-1.5, 2.0]
