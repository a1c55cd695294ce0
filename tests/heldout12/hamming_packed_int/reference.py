"""Pairwise Hamming distances between packed binary codes (e.g. binary hashes of embeddings).

a is (NUM_QUERIES, WORDS) and b (NUM_ITEMS, WORDS) int32, each row a 32 * WORDS-bit code packed
in words (any bit pattern, negative words included). out[i, j] = number of differing bits =
sum over words of popcount(a[i, w] ^ b[j, w]), int64 (NUM_QUERIES, NUM_ITEMS). Exact.
"""

import torch
import torch.nn as nn

NUM_QUERIES = 200
NUM_ITEMS = 150
WORDS = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        x = a[:, None, :] ^ b[None, :, :]
        count = torch.zeros(x.shape[:2], dtype=torch.int64, device=x.device)
        for bit in range(32):
            count += ((x >> bit) & 1).sum(dim=-1)
        return count


def get_inputs():
    a = torch.randint(-(2**31), 2**31, (NUM_QUERIES, WORDS), dtype=torch.int32)
    b = torch.randint(-(2**31), 2**31, (NUM_ITEMS, WORDS), dtype=torch.int32)
    return [a, b]


def get_init_inputs():
    return []
