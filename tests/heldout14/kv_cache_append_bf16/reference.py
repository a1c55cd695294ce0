"""KV-cache append: write T new tokens of every (batch, head) at that sample's write position.

cache (B, HEADS, S, D) bf16, new (B, HEADS, T, D) bf16, pos (B,) int64 with pos[b] + T <= S (each
sample at its own decode position). Output: a copy of cache with
out[b, :, pos[b]:pos[b] + T, :] = new[b] (exact; the input cache is not modified).
"""

import torch
import torch.nn as nn

B = 4
HEADS = 3
S = 48
T = 5
D = 40


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, cache: torch.Tensor, new: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        out = cache.clone()
        t = new.shape[2]
        for b in range(cache.shape[0]):
            p = int(pos[b])
            out[b, :, p : p + t] = new[b]
        return out


def get_inputs():
    cache = torch.randn(B, HEADS, S, D).bfloat16()
    new = torch.randn(B, HEADS, T, D).bfloat16()
    pos = torch.randint(0, S - T + 1, (B,))
    return [cache, new, pos]


def get_init_inputs():
    return []
