"""Rotary position embedding (rotate-half form, as in GPT-NeoX and LLaMA), in float16.

x is (BATCH, SEQ, HEADS, DIM) fp16, positions 0..SEQ-1 along dim 1. For i < DIM / 2 and the
token at position s: theta_i = BASE ** (-2 i / DIM), a = s * theta_i, and
out[..., i] = x[..., i] cos(a) - x[..., i + DIM / 2] sin(a),
out[..., i + DIM / 2] = x[..., i + DIM / 2] cos(a) + x[..., i] sin(a).
The angles and the rotation are computed in (at least) fp32; the output is fp16.
"""

import torch
import torch.nn as nn

BATCH = 2
SEQ = 37
HEADS = 3
HALF_DIM = 24
DIM = 2 * HALF_DIM
BASE = 10000.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, s_len, _, dim = x.shape
        half = dim // 2
        ct = torch.promote_types(x.dtype, torch.float32)
        inv_freq = BASE ** (-2.0 * torch.arange(half, dtype=ct, device=x.device) / dim)
        pos = torch.arange(s_len, dtype=ct, device=x.device)
        angle = pos[:, None] * inv_freq[None, :]
        cos = torch.cos(angle)[None, :, None, :]
        sin = torch.sin(angle)[None, :, None, :]
        x1 = x[..., :half].to(ct)
        x2 = x[..., half:].to(ct)
        out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
        return out.to(x.dtype)


def get_inputs():
    x = torch.randn(BATCH, SEQ, HEADS, DIM, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return []
