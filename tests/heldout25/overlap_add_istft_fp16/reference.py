"""Windowed overlap-add with window-envelope normalisation, the last stage of an inverse STFT
(torch.istft after the inverse FFT, center = False): frames (B, F, N) fp16 of length N = n_fft
placed every hop samples, y[t] = sum_f frames[f, t - f hop] w[t - f hop], the envelope
env[t] = sum_f w[t - f hop]^2, out = y / env where env > 1e-11 and 0 elsewhere (where the
window vanishes). The frames are a transposed view of a (B, N, F) buffer (the layout the inverse
FFT produced); window (N,) fp32 (periodic Hann); out (B, (F - 1) hop + N) fp32.
"""

import torch
import torch.nn as nn

SIGNALS = 6
FRAMES = 40


class Model(nn.Module):
    def __init__(self, n_fft, hop):
        super().__init__()
        self.n_fft = n_fft
        self.hop = hop

    def forward(self, frames, window):
        ft = torch.promote_types(frames.dtype, torch.float32)
        B, nf, n = frames.shape
        length = (nf - 1) * self.hop + n
        w = window.to(ft)
        y = torch.zeros(B, length, dtype=ft, device=frames.device)
        env = torch.zeros(length, dtype=ft, device=frames.device)
        for f in range(nf):
            y[:, f * self.hop : f * self.hop + n] += frames[:, f].to(ft) * w
            env[f * self.hop : f * self.hop + n] += w * w
        safe = torch.where(env > 1e-11, env, torch.ones_like(env))
        return torch.where(env > 1e-11, y / safe, torch.zeros_like(y))


def get_inputs():
    n = 64
    buf = torch.randn(SIGNALS, n, FRAMES)
    k = torch.arange(n, dtype=torch.float32)[:, None]
    buf[1] = torch.cos(2 * torch.pi * 5 * k / n)  # the same frame everywhere
    buf[2, :, FRAMES - 1] = 50.0  # a loud last frame: reaches the tail samples alone
    buf[3, :, 0] = -30.0  # a loud first frame
    buf[4] = 1e-3 * buf[4]
    window = torch.hann_window(n, periodic=True)  # w[0] = 0: the first sample has no energy
    return [buf.to(torch.float16).transpose(1, 2), window]


def get_init_inputs():
    return [64, 16]
