"""Embedding gather with a per-row scale: (weight[idx] * scale[:, None]) in fp32, rounded to bf16.

The table is an nn.Embedding(500, 300) in bf16; idx is (257,) int64, scale is (257,) fp32 (e.g.
a per-token gate). The output is (257, 300) bf16.
"""

import torch
import torch.nn as nn

VOCAB, DIM, B = 500, 300, 257


class Model(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim).to(torch.bfloat16)

    def forward(self, idx: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return (self.emb(idx).float() * scale[:, None]).to(torch.bfloat16)


def get_inputs():
    idx = torch.randint(0, VOCAB, (B,), dtype=torch.int64)
    scale = torch.rand(B) * 2 + 0.1
    return [idx, scale]


def get_init_inputs():
    return [VOCAB, DIM]
