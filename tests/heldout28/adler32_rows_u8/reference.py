"""Adler-32 checksums (zlib.adler32 with the default start value 1) of every row of a byte matrix: a = 1 + sum of
the bytes, b = the sum of the running a values, both modulo 65521, checksum = (b << 16) | a. Rows (R, L) uint8 are
bytes 8 .. L + 7 of (R, L + 16) records (an 8-byte header and footer); one int64 output (R,).
"""

import torch
import torch.nn as nn

ROWS = 70
LENGTH = 1500


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, data):
        d = data.to(torch.int64)
        a = (1 + d.cumsum(1)) % 65521
        b = a.sum(1) % 65521
        return (b << 16) | a[:, -1]


def get_inputs():
    R, L = ROWS, LENGTH
    data = torch.randint(0, 256, (R, L), dtype=torch.uint8)
    data[1] = 255  # all 0xFF: the largest sums
    data[2] = 0  # all zero: a = 1, b = L
    data[3, : L // 2] = 0  # zeros, then bytes
    data[4] = torch.arange(L, dtype=torch.int64).remainder(256).to(torch.uint8)  # a byte ramp
    data[R - 1, L - 1] = 200  # a loud last byte
    buf = torch.randint(1, 256, (R, L + 16), dtype=torch.uint8)
    buf[:, 8 : L + 8] = data
    return [buf[:, 8 : L + 8]]


def get_init_inputs():
    return []
