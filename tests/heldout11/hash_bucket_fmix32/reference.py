"""Feature hashing of int32 ids into NUM_BUCKETS buckets with the MurmurHash3 32-bit finaliser, int64 out.

keys is (N,) int32 (any value, negative ones included), read as unsigned 32-bit words. With every
step modulo 2^32: h = key ^ SEED; h ^= h >> 16; h *= 0x85EBCA6B; h ^= h >> 13; h *= 0xC2B2AE35;
h ^= h >> 16 (logical shifts of the unsigned word); bucket = h % NUM_BUCKETS (a prime, not a power
of two), as int64. Exact.
"""

import torch
import torch.nn as nn

N = 30011
SEED = 0x9E3779B9
NUM_BUCKETS = 1048573
MASK32 = 0xFFFFFFFF


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, keys: torch.Tensor) -> torch.Tensor:
        h = (keys.to(torch.int64) & MASK32) ^ SEED
        h = h ^ (h >> 16)
        h = (h * 0x85EBCA6B) & MASK32
        h = h ^ (h >> 13)
        h = (h * 0xC2B2AE35) & MASK32
        h = h ^ (h >> 16)
        return h % NUM_BUCKETS


def get_inputs():
    keys = torch.randint(-(2**31), 2**31 - 1, (N,), dtype=torch.int32)
    return [keys]


def get_init_inputs():
    return []
