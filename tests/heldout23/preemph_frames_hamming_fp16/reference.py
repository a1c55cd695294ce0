"""Speech front end before the FFT (Kaldi / python_speech_features style): pre-emphasis
y[t] = x[t] - 0.97 x[t - 1] (y[0] = x[0]), framing into overlapping frames of FRAME samples every
HOP samples (constructor arguments; no padding: NF = (T - FRAME) // HOP + 1), and a symmetric Hamming window
0.54 - 0.46 cos(2 pi n / (self.frame - 1)).

x (B, T) fp16 audio -> out (B, NF, FRAME) fp16, computed in fp32 and rounded once.
"""

import math

import torch
import torch.nn as nn

BATCH = 3
SAMPLES = 7700
FRAME = 400
HOP = 160
PREEMPH = 0.97


class Model(nn.Module):
    def __init__(self, frame, hop):
        super().__init__()
        self.frame = frame
        self.hop = hop

    def forward(self, x):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        y = torch.cat([xf[:, :1], xf[:, 1:] - PREEMPH * xf[:, :-1]], dim=1)
        frames = y.unfold(-1, self.frame, self.hop)
        n = torch.arange(self.frame, device=x.device, dtype=xf.dtype)
        win = 0.54 - 0.46 * torch.cos(2 * math.pi * n / (self.frame - 1))
        return (frames * win).to(x.dtype)


def get_inputs():
    t = torch.arange(SAMPLES, dtype=torch.float32) / 16000.0
    x = torch.empty(BATCH, SAMPLES)
    x[0] = 0.6 * torch.sin(2 * math.pi * 120.0 * t) + 0.01 * torch.randn(SAMPLES)  # low hum: y small
    x[1] = 0.3 * torch.randn(SAMPLES) + 0.2  # noise with a DC offset
    x[1, SAMPLES // 3 : SAMPLES // 2] = 0.0  # silence
    x[2] = 0.9 * torch.sin(2 * math.pi * 440.0 * t) * torch.sin(2 * math.pi * 3.0 * t)
    x[2] = x[2].clamp(-0.7, 0.7)  # clipped tone
    return [x.half()]


def get_init_inputs():
    return [FRAME, HOP]
