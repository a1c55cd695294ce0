"""Spectral flux onset strength (madmom / librosa style) of log-compressed magnitude spectrograms:
Y = log(1 + GAMMA S), flux[b, t] = mean_f max(Y[b, f, t] - Y[b, f, t - 1], 0) for t >= 1 and flux[b, 0] = 0.
S (B, F, T) fp16 is a band slice of a wider (B, F + 6, T) spectrogram buffer (a strided view); out (B, T) fp32.
"""

import torch
import torch.nn as nn

BATCH = 5
BANDS = 80
FRAMES = 300


class Model(nn.Module):
    def __init__(self, gamma):
        super().__init__()
        self.gamma = gamma

    def forward(self, s):
        ft = torch.promote_types(s.dtype, torch.float32)
        y = torch.log1p(self.gamma * s.to(ft))
        rise = torch.clamp(y[:, :, 1:] - y[:, :, :-1], min=0.0)
        flux = torch.zeros(s.shape[0], s.shape[2], dtype=ft, device=s.device)
        flux[:, 1:] = rise.mean(dim=1)
        return flux


def get_inputs():
    level = torch.exp(torch.randn(BATCH, BANDS + 6, 1))
    buf = torch.rand(BATCH, BANDS + 6, FRAMES) * level
    buf[0, :, FRAMES // 3 :] *= 40.0  # a step onset
    buf[1, :, : FRAMES // 2] = 0.0  # silence, then sound
    buf[1, :, FRAMES - 1] = 500.0  # a loud last frame (the tail block)
    buf[2, :, 0] = 1000.0  # a loud first frame: flux[0] stays 0, frame 1 only falls
    buf[3, 3 + BANDS - 1, :] = 300.0 * (torch.arange(FRAMES) % 2)  # the last band alternating
    buf[BATCH - 1, 3:9, :] = 0.0  # silent low bands
    return [buf.to(torch.float16)[:, 3 : 3 + BANDS, :]]


def get_init_inputs():
    return [10.0]
