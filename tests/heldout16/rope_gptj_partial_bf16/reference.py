"""GPT-J-style rotary embedding (interleaved pairs) on the first ROT channels of each head only.

x (BATCH, SEQ, HEADS, HEAD_DIM) bf16, position ids (BATCH, SEQ) int64 = a per-sample start
(< 200, a continued KV cache) + arange(SEQ). For pair i < ROT / 2 (channels 2i, 2i + 1):
w_i = BASE^(-2i / ROT), a = pos w_i, out[2i] = x[2i] cos a - x[2i + 1] sin a,
out[2i + 1] = x[2i + 1] cos a + x[2i] sin a. Channels ROT .. HEAD_DIM pass through unchanged.
fp32 math, one rounding to bf16.
"""

import torch
import torch.nn as nn

BATCH = 2
SEQ = 37
HEADS = 5
HEAD_DIM = 96
ROT = 24
BASE = 10000.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        inv_freq = 1.0 / (BASE ** (torch.arange(0, ROT, 2, dtype=ct, device=x.device) / ROT))
        ang = pos.to(ct)[..., None] * inv_freq  # (B, S, ROT / 2)
        cos, sin = torch.cos(ang)[:, :, None, :], torch.sin(ang)[:, :, None, :]
        xr = x[..., :ROT].to(ct)
        xe, xo = xr[..., 0::2], xr[..., 1::2]
        rot = torch.stack((xe * cos - xo * sin, xo * cos + xe * sin), dim=-1).flatten(-2)
        return torch.cat((rot, x[..., ROT:].to(ct)), dim=-1).to(x.dtype)


def get_inputs():
    x = torch.randn(BATCH, SEQ, HEADS, HEAD_DIM).bfloat16()
    start = torch.randint(0, 200, (BATCH, 1))
    pos = start + torch.arange(SEQ)[None, :]
    return [x, pos]


def get_init_inputs():
    return []
