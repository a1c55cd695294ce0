"""Frame-level zero-crossing rate and RMS energy (librosa.feature.zero_crossing_rate / rms with center=False): frames
of FRAME samples every HOP samples (frames that do not fit are dropped); a crossing between neighbours i - 1, i of a
frame (i >= 1) where their signs differ, 0 counting as positive (zero_pos); zcr = crossings / FRAME and
rms = sqrt(mean(x^2)) over the frame, both fp32 (B, F) with F = 1 + (T - FRAME) // HOP. The signal x (B, T) fp16 is
the left channel of an interleaved stereo buffer (B, T + 64, 2) cropped at sample 32: element stride 2.
"""

import torch
import torch.nn as nn

BATCH = 6
FRAMES = 61


class Model(nn.Module):
    def __init__(self, frame, hop):
        super().__init__()
        self.frame = frame
        self.hop = hop

    def forward(self, x):
        ft = torch.promote_types(x.dtype, torch.float32)
        fr = x.to(ft).unfold(1, self.frame, self.hop)
        pos = fr >= 0
        zcr = (pos[..., 1:] != pos[..., :-1]).sum(-1).to(ft) / self.frame
        rms = torch.sqrt((fr * fr).mean(-1))
        return zcr, rms


def get_inputs():
    B = BATCH
    T = (FRAMES - 1) * 128 + 256 + 64  # 64 samples past the last whole frame (dropped)
    t = torch.arange(T, dtype=torch.float32)
    x = torch.randn(B, T) * 0.3
    x[1] = torch.sin(2 * torch.pi * 440.0 * t / 16000.0)
    x[2] = torch.clamp(torch.sin(2 * torch.pi * 300.0 * t / 16000.0), min=0.0)  # half-wave rectified: zeros
    x[3, : T // 3] = 0.0  # silence, then noise
    x[4] = 1000.0 * torch.sin(2 * torch.pi * 50.0 * t / 16000.0) + 5.0 * torch.randn(T)  # loud: x^2 > 65504
    x[5] = torch.where(torch.arange(T) % 2 == 0, -0.5, 0.0)  # alternating -0.5 / 0: a crossing at every step
    buf = torch.randn(B, T + 64, 2) * 0.1
    buf[:, 32 : 32 + T, 0] = x
    return [buf.to(torch.float16)[:, 32 : 32 + T, 0]]


def get_init_inputs():
    return [256, 128]
