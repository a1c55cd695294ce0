"""Bit-reversal permutation of complex rows, the reordering step before an iterative radix-2
Cooley-Tukey FFT: x (B, N, 2) fp16 (real, imaginary interleaved), N = 2^LOG_N; out[b, rev(i)] =
x[b, i] with rev the LOG_N-bit reversal of the index (an involution, so also out[b, j] =
x[b, rev(j)]). An exact copy.
"""

import torch
import torch.nn as nn

BATCH = 21
LOG_N = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.shape[1]
        bits = n.bit_length() - 1
        idx = torch.arange(n, device=x.device)
        rev = torch.zeros_like(idx)
        for k in range(bits):
            rev |= ((idx >> k) & 1) << (bits - 1 - k)
        return x[:, rev, :]


def get_inputs():
    n = 1 << LOG_N
    x = torch.randn(BATCH, n, 2)
    t = torch.arange(n, dtype=torch.float32)
    x[0, :, 0] = t  # the index itself (exact in fp16 up to 2048): shows the permutation
    x[0, :, 1] = -t
    x[1] = 0.0
    x[1, 1, 0] = 1.0  # a unit impulse at 1: lands at N / 2
    x[2, :, 0] = torch.cos(2 * torch.pi * 3 * t / n)
    x[2, :, 1] = torch.sin(2 * torch.pi * 3 * t / n)
    x[3::5] *= 6.0e4 / x[3::5].abs().amax().clamp_min(1.0)  # near the fp16 maximum
    return [x.to(torch.float16)]


def get_init_inputs():
    return []
