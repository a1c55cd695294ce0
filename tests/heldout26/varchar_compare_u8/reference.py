"""Byte-wise comparison of variable-length strings (SQL VARCHAR with a binary collation, memcmp on unsigned
bytes): cmp[r] = sign of the first differing byte among the first min(la, lb) bytes, else sign(la - lb); and the
common-prefix length lcp[r]. a (R, L) uint8 and b (R, L) uint8 (a column slice of a wider (R, L + 24) buffer) hold
the strings padded with garbage past their lengths la, lb (R,) int64; cmp (R,) int32, lcp (R,) int64 (exact).
"""

import torch
import torch.nn as nn

ROWS = 300
WIDTH = 200


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, la, lb):
        L = a.shape[1]
        pos = torch.arange(L, device=a.device)
        n = torch.minimum(la, lb)
        diff = (a != b) & (pos[None, :] < n[:, None])
        first = torch.where(diff, pos[None, :], L).amin(dim=1)
        lcp = torch.minimum(first, n)
        idx = first.clamp(max=L - 1)[:, None]
        by_byte = torch.sign(a.gather(1, idx).to(torch.int32) - b.gather(1, idx).to(torch.int32)).squeeze(1)
        by_len = torch.sign(la - lb).to(torch.int32)
        return torch.where(first < n, by_byte, by_len), lcp


def get_inputs():
    R, L = ROWS, WIDTH
    a = torch.randint(97, 99, (R, L), dtype=torch.uint8)  # 'a' / 'b' only: long common prefixes are likely
    wide = torch.randint(0, 256, (R, L + 24), dtype=torch.uint8)  # garbage past the strings
    b = wide[:, :L]
    b.copy_(a)
    rows = torch.arange(R)
    hit = torch.randint(0, L, (R,))
    b[rows, hit] = torch.randint(0, 256, (R,), dtype=torch.uint8)  # one edited byte per row (maybe equal)
    la = torch.randint(0, L + 1, (R,))
    lb = (la + torch.randint(-3, 4, (R,))).clamp(0, L)
    b[rows, lb.clamp(max=L - 1)] = 7  # garbage right after b's string where it is shorter than L
    la[0:8:6], lb[0:8:6] = L, L  # identical full-width strings (no mismatch anywhere): rows 0 and 6
    b[0:8:6] = a[0:8:6]
    la[1] = 0  # an empty string
    a[2, 5], b[2, 5], la[2], lb[2] = 200, 50, L, L  # bytes >= 128 compare unsigned
    b[2, :5] = a[2, :5]
    b[3] = a[3]
    b[3, L // 2 :] = 0  # differs only past the shorter length: decided by the lengths
    la[3], lb[3] = L // 2, L // 3
    b[4] = a[4]
    b[4, L - 1] = 255  # the last byte of full-width strings (the tail chunk)
    la[4], lb[4] = L, L
    b[5, : 3 * L // 10] = a[5, : 3 * L // 10]  # b a proper prefix of a
    la[5], lb[5] = 2 * L // 5, 3 * L // 10
    b[R - 1] = a[R - 1]
    la[R - 1], lb[R - 1] = L // 6, L // 6  # equal strings, garbage differs after them
    a[R - 1, L // 6 :] = 1
    return [a, b, la, lb]


def get_init_inputs():
    return []
