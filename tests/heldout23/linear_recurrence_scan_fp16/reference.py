"""First-order linear recurrence h_t = a_t h_{t-1} + b_t along time (the diagonal state update of
linear RNNs / LRU / S4-style layers and of IIR smoothing), from a per-row initial state h0.

a, b (R, T) fp16, h0 (R,) fp16 -> every state h (R, T) in fp32 (the recurrence run in fp32).
"""

import torch
import torch.nn as nn

ROWS = 30
STEPS = 600


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, h0):
        ft = torch.promote_types(a.dtype, torch.float32)
        af, bf = a.to(ft), b.to(ft)
        h = h0.to(ft)
        out = torch.empty_like(af)
        for t in range(af.shape[1]):
            h = af[:, t] * h + bf[:, t]
            out[:, t] = h
        return out


def get_inputs():
    a = 0.8 + 0.2 * torch.rand(ROWS, STEPS)  # long memory
    b = 0.1 * torch.randn(ROWS, STEPS)
    a[1] = 1.0  # a running sum
    a[2] = -0.9  # alternating sign
    a[3, ::50] = 0.0  # resets
    a[4] = 0.5 * torch.rand(STEPS)  # short memory
    b[5] = 1.0  # a constant drive: h approaches b / (1 - a)
    h0 = 2.0 * torch.randn(ROWS)
    h0[0] = 0.0
    return [a.half(), b.half(), h0.half()]


def get_init_inputs():
    return []
