"""Triton STFT power spectrogram as a DFT matmul: one program per (16-frame block, sample)
(NF = 59 frames: tail 11).

The frame tile (16 frames x 64 samples) is gathered from x at 16 t + n and multiplied by the
periodic Hann window 0.5 - 0.5 cos(2 pi n / 64); the cosine / sine twiddle tiles (64 samples x 64
bins, the 33 real bins padded) are made in the kernel from the exact phase index (n k) mod 64.
re = frames @ cos, im = frames @ sin (tl.dot, IEEE fp32); power re^2 + im^2 is written to
out[b, k, t] (bins major, frames minor), only for k < 33 and t < NF.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

TWO_PI = 6.283185307179586


@triton.jit
def stft_power_kernel(
    x_ptr,
    out_ptr,
    L,
    NF,
    NBINS,
    N_FFT: tl.constexpr,
    HOP: tl.constexpr,
    BF: tl.constexpr,
    BK: tl.constexpr,
    TWO_PI: tl.constexpr,
):
    fb = tl.program_id(0)
    b = tl.program_id(1)
    f = fb * BF + tl.arange(0, BF)
    fmask = f < NF
    n = tl.arange(0, N_FFT)
    k = tl.arange(0, BK)
    xs = tl.load(x_ptr + b * L + f[:, None] * N_FFT + n[None, :], mask=fmask[:, None], other=0.0)
    win = 0.5 - 0.5 * tl.cos(TWO_PI * n.to(tl.float32) / N_FFT)
    frames = xs * win[None, :]
    phase = (n[:, None] * k[None, :]) % N_FFT
    ang = TWO_PI * phase.to(tl.float32) / N_FFT
    re = tl.dot(frames, tl.cos(ang), input_precision="ieee")
    im = tl.dot(frames, tl.sin(ang), input_precision="ieee")
    power = re * re + im * im
    out_offs = b * NBINS * NF + k[None, :] * NF + f[:, None]
    tl.store(out_ptr + out_offs, power, mask=fmask[:, None] & (k[None, :] < NBINS))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.n_fft = 64
        self.hop = 16

    def forward(self, x):
        x = x.contiguous()
        B, L = x.shape
        nf = (L - self.n_fft) // self.hop + 1
        nbins = self.n_fft // 2 + 1
        out = torch.empty(B, nbins, nf, device=x.device, dtype=x.dtype)
        BF = 16
        grid = (triton.cdiv(nf, BF), B)
        stft_power_kernel[grid](
            x, out, L, nf, nbins, N_FFT=self.n_fft, HOP=self.hop, BF=BF, BK=self.n_fft, TWO_PI=TWO_PI
        )
        return out
