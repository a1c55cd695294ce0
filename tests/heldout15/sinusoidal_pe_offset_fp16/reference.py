"""Add sinusoidal positional encodings (Transformer, interleaved sin / cos) at per-sample offsets.

x (B, S, D) fp16 is a chunk of S tokens of each sequence, sample b starting at absolute position
start[b] (int64, below 300: a chunk of a longer sequence, as in chunked prefill). out = x + PE,
PE[p, 2i] = sin(p w_i), PE[p, 2i + 1] = cos(p w_i), w_i = 10000^(-2i / D), in fp32 (fp64 for the
golden), rounded once to fp16.
"""

import math

import torch
import torch.nn as nn

B = 4
S = 50
D = 96
BASE = 10000.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        s_len, dim = x.shape[1], x.shape[2]
        pos = (start[:, None] + torch.arange(s_len, device=x.device)[None, :]).to(ct)
        i2 = torch.arange(0, dim, 2, device=x.device).to(ct)
        w = torch.exp(i2 * (-math.log(BASE) / dim))
        ang = pos[:, :, None] * w[None, None, :]
        pe = torch.stack([torch.sin(ang), torch.cos(ang)], dim=-1).reshape(x.shape[0], s_len, dim)
        return (x.to(ct) + pe).to(x.dtype)


def get_inputs():
    x = torch.randn(B, S, D)
    start = torch.randint(0, 250, (B,))
    start[0] = 0
    return [x.half(), start]


def get_init_inputs():
    return []
