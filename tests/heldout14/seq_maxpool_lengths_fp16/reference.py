"""Masked max pooling over time: out[b, d] = max over s < lengths[b] of x[b, s, d].

x (B, S, D) fp16 padded sequences (the padded steps s >= lengths[b] hold stale values that must be
ignored), lengths (B,) int64 in [0, S] (sample 0 full, sample 1 of length 1, sample 2 empty: its
max over no step is -inf). Output (B, D) fp16 (exact: a max).
"""

import torch
import torch.nn as nn

B = 6
S = 100
D = 90


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        steps = torch.arange(x.shape[1], device=x.device)
        keep = steps[None, :, None] < lengths[:, None, None]
        return x.masked_fill(~keep, float("-inf")).amax(dim=1)


def get_inputs():
    x = torch.randn(B, S, D).half()
    lengths = torch.randint(1, S + 1, (B,))
    lengths[0] = S
    lengths[1] = 1
    lengths[2] = 0
    return [x, lengths]


def get_init_inputs():
    return []
