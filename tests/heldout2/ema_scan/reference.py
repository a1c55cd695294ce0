"""Exponential moving average along time: y[0] = x[0], y[t] = a * y[t-1] + (1 - a) * x[t].

fp16 signal of 300 time steps x 200 channels (the channel axis is tiled by 64: a tail of 8),
decay a = 0.99, so each output remembers ~100 steps. The reference carries the state in at least
fp32 (as a careful implementation does) and rounds the output to fp16.
"""

import torch
import torch.nn as nn

T, C = 300, 200
DECAY = 0.99


class Model(nn.Module):
    def __init__(self, decay: float):
        super().__init__()
        self.decay = decay

    def forward(self, x: torch.Tensor):
        state_dtype = torch.promote_types(x.dtype, torch.float32)
        y = torch.empty(x.shape, dtype=state_dtype, device=x.device)
        state = x[0].to(state_dtype)
        y[0] = state
        for t in range(1, x.shape[0]):
            state = self.decay * state + (1.0 - self.decay) * x[t].to(state_dtype)
            y[t] = state
        return y.to(x.dtype)


def get_inputs():
    return [torch.randn(T, C, dtype=torch.float16)]


def get_init_inputs():
    return [DECAY]
