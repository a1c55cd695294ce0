"""Biquad IIR filter (scipy / torchaudio `lfilter` semantics, direct form II transposed) along time.

x (B, C, L) fp16; coeffs (C, 5) fp32 = [b0, b1, b2, a1, a2] per channel (a0 = 1), RBJ low-pass
designs with cutoffs 0.02 .. 0.2 of the sample rate and Q 0.6 .. 2 (poles close to the unit circle,
so an error in the state feeds back for many steps). Zero initial state:
y_t = b0 x_t + z1, z1 = b1 x_t - a1 y_t + z2, z2 = b2 x_t - a2 y_t, in fp32; y returned as fp16.
"""

import math

import torch
import torch.nn as nn

BATCH = 3
CHANNELS = 37
LENGTH = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, coeffs):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        b0, b1, b2, a1, a2 = (coeffs[:, i] for i in range(5))
        z1 = torch.zeros(xf.shape[:2], dtype=xf.dtype, device=xf.device)
        z2 = torch.zeros_like(z1)
        y = torch.empty_like(xf)
        for t in range(xf.shape[-1]):
            xt = xf[..., t]
            yt = b0 * xt + z1
            z1 = b1 * xt - a1 * yt + z2
            z2 = b2 * xt - a2 * yt
            y[..., t] = yt
        return y.to(x.dtype)


def get_inputs():
    t = torch.arange(LENGTH).float()
    tone = torch.sin(2 * math.pi * 0.01 * t)
    x = (tone + 0.5 * torch.randn(BATCH, CHANNELS, LENGTH)).half()
    fc = 0.02 + 0.18 * torch.rand(CHANNELS)
    q = 0.6 + 1.4 * torch.rand(CHANNELS)
    w0 = 2 * math.pi * fc
    alpha = torch.sin(w0) / (2 * q)
    cw = torch.cos(w0)
    a0 = 1 + alpha
    b0 = (1 - cw) / 2 / a0
    b1 = (1 - cw) / a0
    b2 = b0
    a1 = -2 * cw / a0
    a2 = (1 - alpha) / a0
    coeffs = torch.stack([b0, b1, b2, a1, a2], dim=1).contiguous()
    return [x, coeffs]


def get_init_inputs():
    return []
