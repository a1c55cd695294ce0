"""Short-time autocorrelation for LPC analysis (speech coding), biased estimate.

x (F, N) fp16 frames; r[f, k] = sum_{t < N - k} x[f, t] x[f, t + k] / N for lags
k = 0 .. LAGS - 1 (a constructor argument), products and sums in fp32, fp32 out (F, LAGS). The
frames are a slow tone plus noise on a DC offset of 2, so the sums grow to about 5000 (past what an
fp16 sum keeps to fp32 accuracy).
"""

import math

import torch
import torch.nn as nn

FRAMES = 48
LENGTH = 1000
LAGS = 24


class Model(nn.Module):
    def __init__(self, lags):
        super().__init__()
        self.lags = lags

    def forward(self, x):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        n = xf.shape[-1]
        lags = [(xf[:, : n - k] * xf[:, k:]).sum(-1) for k in range(self.lags)]
        return torch.stack(lags, dim=1) / n


def get_inputs():
    t = torch.arange(LENGTH).float()
    freq = 0.005 + 0.05 * torch.rand(FRAMES, 1)
    tone = torch.sin(2 * math.pi * freq * t[None, :])
    x = 2.0 + tone + 0.5 * torch.randn(FRAMES, LENGTH)
    return [x.half()]


def get_init_inputs():
    return [LAGS]
