"""Protocol Buffers sint64 wire encoding: ZigZag z = (x << 1) ^ (x >> 63) (uint64 bits, kept in an int64 tensor),
then the LEB128 varint: n = max(1, ceil(bit_length(z) / 7)) bytes, byte k = ((z >>> 7k) & 0x7F) | 0x80 while more
bytes follow (>>> the logical shift), zero padding up to 10 bytes. x (N,) int64 is the value column of an
interleaved (N, 2) (key, value) record buffer; outputs z (N,) int64, enc (N, 10) uint8, n (N,) int32 (exact).
"""

import torch
import torch.nn as nn

COUNT = 5000


def _lsr(z, s):
    return z if s == 0 else (z >> s) & ((1 << (64 - s)) - 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        z = (x << 1) ^ (x >> 63)
        groups = [_lsr(z, 7 * k) for k in range(10)]
        n = torch.ones_like(z)
        for k in range(1, 10):
            n += (groups[k] != 0).to(torch.int64)
        enc = [torch.where(k < n, (groups[k] & 0x7F) | torch.where(k < n - 1, 0x80, 0), 0) for k in range(10)]
        return z, torch.stack(enc, dim=1).to(torch.uint8), n.to(torch.int32)


def get_inputs():
    N = COUNT
    x = torch.randint(-(2**62), 2**62, (N,), dtype=torch.int64) * 2 + torch.randint(0, 2, (N,))  # full range
    x[: N // 4] = torch.randint(-70, 71, (N // 4,))  # small values: one or two bytes
    k = torch.arange(1, 10)
    edges = torch.cat([2 ** (7 * k - 1), 2 ** (7 * k - 1) - 1, -(2 ** (7 * k - 1)), -(2 ** (7 * k - 1)) - 1])[: N // 2]
    x[N // 4 : N // 4 + edges.numel()] = edges  # where the byte count changes (z = 2 x or -2 x - 1 at 2^7k)
    x[N - 8 :] = torch.tensor([0, -1, 1, 2**63 - 1, -(2**63), 2**62, -(2**62), -(2**62) - 1])  # the tail block
    records = torch.stack([torch.randint(0, 1000, (N,)), x], dim=1)  # (key, value) pairs
    return [records[:, 1]]


def get_init_inputs():
    return []
