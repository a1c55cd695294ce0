"""Levenshtein (edit) distance of every row pair of two byte matrices (fuzzy string matching).

a (B, N) uint8 with lengths la (B,) int64 and b (B, M) uint8 with lengths lb (B,) int64: the
distance between a[r, :la[r]] and b[r, :lb[r]] (unit insertion, deletion and substitution costs);
bytes past a row's length are padding and never compared. out (B,) int64.
"""

import torch
import torch.nn as nn

PAIRS = 37
LEN_A = 24
LEN_B = 19


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, la, b, lb):
        B, N = a.shape
        M = b.shape[1]
        ai = a.to(torch.int64)
        bi = b.to(torch.int64)
        prev = torch.arange(M + 1, dtype=torch.int64).expand(B, M + 1).clone()
        out = torch.where(la == 0, lb, torch.zeros_like(lb))
        out = torch.where(lb == 0, la, out)
        for i in range(N):
            cur = torch.empty_like(prev)
            cur[:, 0] = i + 1
            for j in range(1, M + 1):
                sub = prev[:, j - 1] + (ai[:, i] != bi[:, j - 1]).to(torch.int64)
                cur[:, j] = torch.minimum(torch.minimum(prev[:, j] + 1, cur[:, j - 1] + 1), sub)
            hit = (la == i + 1) & (lb >= 1)
            out = torch.where(hit, cur.gather(1, lb.clamp(0, M).unsqueeze(1)).squeeze(1), out)
            prev = cur
        return out


def get_inputs():
    alphabet = torch.tensor(list(b"acgtn"), dtype=torch.uint8)
    a = alphabet[torch.randint(0, 5, (PAIRS, LEN_A))]
    b = alphabet[torch.randint(0, 5, (PAIRS, LEN_B))]
    # b is a mutated copy of a in every third row (small distances), random elsewhere
    for r in range(0, PAIRS, 3):
        n = min(LEN_A, LEN_B)
        b[r, :n] = a[r, :n]
        flips = torch.randint(0, n, (2,))
        b[r, flips] = alphabet[torch.randint(0, 5, (2,))]
    la = torch.randint(0, LEN_A + 1, (PAIRS,))
    lb = torch.randint(0, LEN_B + 1, (PAIRS,))
    la[0], lb[0] = 0, LEN_B  # empty first string
    la[1], lb[1] = LEN_A, 0  # empty second string
    la[2], lb[2] = 0, 0
    la[3], lb[3] = LEN_A, LEN_B  # full rows
    la[4], lb[4] = 1, 1
    # rows 5, 6: identical prefixes of the same length (distance 0)
    for r in (5, 6):
        n = min(LEN_A, LEN_B) - r + 4
        b[r, :n] = a[r, :n]
        la[r], lb[r] = n, n
    return [a, la, b, lb]


def get_init_inputs():
    return []
