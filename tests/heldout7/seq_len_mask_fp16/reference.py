"""Sequence mask by lengths: zero every time step at or past each sequence's length.

x is (9, 67, 48) fp16 (batch, time, features), lengths is (9,) int64 in [1, 67] (the first
sequence is full length): out[b, t, :] = x[b, t, :] if t < lengths[b] else 0, fp16. Values of
valid steps are passed through unchanged, NaN and Inf included.
"""

import torch
import torch.nn as nn

BATCH = 9
TIME = 67
FEATURES = 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        t = torch.arange(x.shape[1], device=x.device)
        valid = t[None, :] < lengths[:, None]
        return torch.where(valid[..., None], x, torch.zeros((), dtype=x.dtype, device=x.device))


def get_inputs():
    x = torch.randn(BATCH, TIME, FEATURES, dtype=torch.float16)
    lengths = torch.randint(1, TIME + 1, (BATCH,), dtype=torch.int64)
    lengths[0] = TIME
    return [x, lengths]


def get_init_inputs():
    return []
