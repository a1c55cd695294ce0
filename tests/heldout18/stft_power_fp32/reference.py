"""STFT power spectrogram: |torch.stft(x, n_fft=64, hop_length=16, periodic Hann window,
center=False)|^2.

x (B, L) fp32 signals (a few sinusoids plus noise); frames t of 64 samples start at 16 t,
NF = (L - 64) // 16 + 1; out (B, 33, NF) fp32, the one-sided spectrum (bins 0 .. 32) of each frame.
"""

import math

import torch
import torch.nn as nn

BATCH = 3
LENGTH = 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.n_fft = 64
        self.hop = 16

    def forward(self, x):
        window = torch.hann_window(self.n_fft, periodic=True, dtype=x.dtype, device=x.device)
        spec = torch.stft(x, self.n_fft, hop_length=self.hop, window=window, center=False, return_complex=True)
        return spec.abs() ** 2


def get_inputs():
    t = torch.arange(LENGTH, dtype=torch.float32)
    freqs = 0.02 + 0.4 * torch.rand(BATCH, 3, 1)
    amps = 0.5 + torch.rand(BATCH, 3, 1)
    x = (amps * torch.sin(2 * math.pi * freqs * t + 6.0 * torch.rand(BATCH, 3, 1))).sum(dim=1)
    return [x + 0.3 * torch.randn(BATCH, LENGTH)]


def get_init_inputs():
    return []
