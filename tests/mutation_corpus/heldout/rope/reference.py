"""Rotary position embedding (GPT-NeoX rotate_half form) on fp32 q of shape (2, 6, 50, 64), base 10000."""

import torch
import torch.nn as nn

BATCH, HEADS, SEQ, HEAD_DIM = 2, 6, 50, 64
BASE = 10000.0


def rope_tables(seq: int, head_dim: int, base: float, dtype, device):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float64, device=device) / head_dim))
    angles = torch.arange(seq, dtype=torch.float64, device=device)[:, None] * inv_freq[None, :]
    return angles.cos().to(dtype), angles.sin().to(dtype)


class Model(nn.Module):
    def __init__(self, base: float):
        super().__init__()
        self.base = base

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        cos, sin = rope_tables(q.shape[2], q.shape[3], self.base, q.dtype, q.device)
        cos = torch.cat([cos, cos], dim=-1)
        sin = torch.cat([sin, sin], dim=-1)
        half = q.shape[-1] // 2
        rotated = torch.cat([-q[..., half:], q[..., :half]], dim=-1)
        return q * cos + rotated * sin


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [BASE]
