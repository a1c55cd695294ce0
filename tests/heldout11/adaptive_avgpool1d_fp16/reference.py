"""Adaptive 1-D average pooling to OUT_SIZE bins, F.adaptive_avg_pool1d, fp16 (fp32 math).

x is (BATCH, CHANNELS, LENGTH) fp16. Bin i averages x[..., start_i:end_i] with
start_i = floor(i LENGTH / OUT_SIZE) and end_i = ceil((i + 1) LENGTH / OUT_SIZE): with
LENGTH = 1000 and OUT_SIZE = 13 the windows hold 77 or 78 values and neighbours overlap by one.
Activations are ~N(1, 1) (non-zero mean), so window sums are around 78.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4
CHANNELS = 8
LENGTH = 1000
OUT_SIZE = 13


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        acc = torch.promote_types(x.dtype, torch.float32)
        return F.adaptive_avg_pool1d(x.to(acc), OUT_SIZE).to(x.dtype)


def get_inputs():
    x = (1.0 + torch.randn(BATCH, CHANNELS, LENGTH)).to(torch.float16)
    return [x]


def get_init_inputs():
    return []
