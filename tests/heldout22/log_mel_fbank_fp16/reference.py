"""Log-mel filterbank energies of a power spectrogram (the front end of speech models:
torchaudio's MelScale with HTK mel points and no normalisation, then log with a floor).

spec (B, T, F) fp16 power spectra with F = n_fft / 2 + 1 bins spanning 0 .. sample_rate / 2;
n_mels triangular filters whose corners are n_mels + 2 points equally spaced on the HTK mel scale
mel(f) = 2595 log10(1 + f / 700); filter m rises from corner m to corner m + 1 and falls to
corner m + 2. out (B, T, n_mels) = log(max(spec @ fb, 1e-10)) in fp32, rounded to spec's dtype.
"""

import math

import torch
import torch.nn as nn

BATCH = 3
FRAMES = 50
BINS = 257


class Model(nn.Module):
    def __init__(self, sample_rate, n_mels):
        super().__init__()
        self.sample_rate = sample_rate
        self.n_mels = n_mels

    def forward(self, spec):
        dt = torch.promote_types(spec.dtype, torch.float32)
        F = spec.shape[-1]
        nyq = self.sample_rate / 2
        mels = torch.linspace(0.0, 2595.0 * math.log10(1.0 + nyq / 700.0), self.n_mels + 2, dtype=dt)
        hz = 700.0 * (torch.pow(10.0, mels / 2595.0) - 1.0)
        freqs = torch.linspace(0.0, nyq, F, dtype=dt)[:, None]
        lo, c, hi = hz[:-2], hz[1:-1], hz[2:]
        fb = torch.clamp(torch.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)), min=0.0)
        mel = spec.to(dt) @ fb.to(spec.device)
        return torch.log(torch.clamp(mel, min=1e-10)).to(spec.dtype)


def get_inputs():
    f = torch.arange(BINS).float()
    envelope = 30.0 * torch.exp(-f / (BINS / 6))[None, None, :] + 0.5
    spec = envelope * torch.rand(BATCH, FRAMES, BINS) ** 2
    for h in range(1, 6):  # harmonics
        spec[:, :, (h * 23) % BINS] += 40.0 / h
    spec[:, ::7] = 0.0  # silent frames: every mel energy is 0
    spec[:, 3, : BINS // 2] = 0.0  # only high frequencies
    return [spec.to(torch.float16)]


def get_init_inputs():
    return [16000, 40]
