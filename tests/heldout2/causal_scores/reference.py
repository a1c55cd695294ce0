"""Causal attention scores: S = (Q @ K^T) / sqrt(D), with -inf above the diagonal, fp16.

Q, K: (6 heads, 100 positions, head dim 48). 100 is not a multiple of the 32-wide tiles and 48
is not a power of two (the head dim is padded to 64 and masked).
"""

import math

import torch
import torch.nn as nn

HEADS, SEQ, DIM = 6, 100, 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor):
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        seq = q.shape[-2]
        future = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
        return scores.masked_fill(future, float("-inf"))


def get_inputs():
    q = torch.randn(HEADS, SEQ, DIM, dtype=torch.float16)
    k = torch.randn(HEADS, SEQ, DIM, dtype=torch.float16)
    return [q, k]


def get_init_inputs():
    return []
