"""Goertzel single-bin power spectrum (DTMF / tone detection) of every frame.

x (F, N) fp16 frames, bins (K,) int64 DFT bin indices (0 < k < N / 2); out (F, K) fp32 with
out[f, i] = |sum_t x[f, t] exp(-2 pi j bins[i] t / N)|^2, the DFT taken in fp32 (phase reduced mod N exactly).
"""

import math

import torch
import torch.nn as nn

FRAMES = 40
SAMPLES = 150
NBINS = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, bins):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        n = x.shape[1]
        t = torch.arange(n, device=x.device)
        phase = (bins[None, :] * t[:, None]) % n
        ang = (2 * math.pi / n) * phase.to(xf.dtype)
        re = xf @ torch.cos(ang)
        im = xf @ torch.sin(ang)
        return re * re + im * im


def get_inputs():
    # a detector bank: every bin carries a tone (amplitude 0.3 .. 1, random phase) under noise
    bins = 5 + (torch.arange(NBINS) * 7) % max(SAMPLES // 2 - 10, 1)
    t = torch.arange(SAMPLES, dtype=torch.float32)
    amp = 0.3 + 0.7 * torch.rand(FRAMES, NBINS, 1)
    phi = 2 * math.pi * torch.rand(FRAMES, NBINS, 1)
    tones = amp * torch.cos(2 * math.pi * bins[None, :, None].float() * t / SAMPLES + phi)
    x = tones.sum(1) + 0.3 * torch.randn(FRAMES, SAMPLES)
    return [x.half(), bins]


def get_init_inputs():
    return []
