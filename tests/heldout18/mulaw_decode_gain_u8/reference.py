"""mu-law decoding of 8-bit audio codes (torchaudio.functional.mu_law_decoding, 256 channels)
with a per-channel output gain.

codes (B, C, L) uint8 (mostly near the middle, as quiet audio is, plus some uniform ones);
gain (C,) fp16 per-channel volumes. mu = 255, x = 2 code / mu - 1,
y = sign(x) (exp(|x| log1p(mu)) - 1) / mu, out = gain[c] y; computed in fp32 (the promoted dtype),
out in the gain's dtype (fp16, one rounding).
"""

import math

import torch
import torch.nn as nn

BATCH = 2
CHANNELS = 3
LENGTH = 3001


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, codes, gain):
        ct = torch.promote_types(gain.dtype, torch.float32)
        mu = 255.0
        x = codes.to(ct) / mu * 2.0 - 1.0
        y = torch.sign(x) * (torch.exp(x.abs() * math.log1p(mu)) - 1.0) / mu
        return (gain.to(ct)[None, :, None] * y).to(gain.dtype)


def get_inputs():
    quiet = torch.clamp(torch.round(128.0 + 40.0 * torch.randn(BATCH, CHANNELS, LENGTH)), 0, 255)
    loud = torch.randint(0, 256, (BATCH, CHANNELS, LENGTH)).float()
    codes = torch.where(torch.rand(BATCH, CHANNELS, LENGTH) < 0.8, quiet, loud)
    gain = 0.5 + torch.rand(CHANNELS)
    return [codes.to(torch.uint8), gain.half()]


def get_init_inputs():
    return []
