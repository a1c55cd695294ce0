import torch
import torch.nn as nn

BATCH = 3
Q_HEADS = 8
KV_HEADS = 2
KEYS = 40
DIM = 16


class Model(nn.Module):
    """Query head h scales its features by the key sums of KV head h // (Q_HEADS // KV_HEADS)."""

    def forward(self, q: torch.Tensor, kv: torch.Tensor) -> torch.Tensor:
        group = q.shape[1] // kv.shape[1]
        sums = kv.sum(dim=2).repeat_interleave(group, dim=1)  # (B, Q_HEADS, DIM)
        return q * sums


def get_inputs():
    return [torch.randn(BATCH, Q_HEADS, DIM), torch.randn(BATCH, KV_HEADS, KEYS, DIM)]


def get_init_inputs():
    return []
