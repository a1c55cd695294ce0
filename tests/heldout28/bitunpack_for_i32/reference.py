"""Decoding of bit-packed integer pages with a frame of reference (Parquet / ORC style bit-packing, LSB first):
value i of a page is bits i W .. i W + W - 1 of the page's little-endian stream of 32-bit words (a value may span two
words; bit k of the stream is bit k % 32 of word k // 32), plus the page's base (its minimum), out = base + value.
Every page holds N = 32 NW // W values (the last W - 1 bits at most are padding). Words (P, NW) int32 (raw bit
patterns: negative where bit 31 is set) are words 2 .. NW + 1 of a (P, NW + 4) page buffer, base (P,) int64 is
column 0 of a (P, 3) page-statistics table; W 7 from the constructor; one int64 output (P, N).
"""

import torch
import torch.nn as nn

PAGES = 40
WORDS = 219


class Model(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width

    def forward(self, words, base):
        P, NW = words.shape
        W = self.width
        N = NW * 32 // W
        w = words.to(torch.int64) & 0xFFFFFFFF
        i = torch.arange(N, device=words.device)
        v = torch.zeros(P, N, dtype=torch.int64, device=words.device)
        for k in range(W):
            bit = i * W + k
            v |= ((w[:, bit // 32] >> (bit % 32)) & 1) << k
        return base[:, None] + v


def get_inputs():
    P, NW, W = PAGES, WORDS, 7
    N = NW * 32 // W
    vals = torch.randint(0, 1 << W, (P, N))
    vals[1] = (1 << W) - 1  # all ones: every bit set
    vals[2] = 0  # all zero
    vals[3, ::2] = (1 << W) - 1  # alternating extremes
    bits = torch.randint(0, 2, (P, NW * 32))  # padding bits past the last value stay random
    for k in range(W):
        bits[:, torch.arange(N) * W + k] = (vals >> k) & 1
    words = (bits.view(P, NW, 32) << torch.arange(32)).sum(2)
    words = torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)
    buf = torch.randint(-(2**31), 2**31 - 1, (P, NW + 4), dtype=torch.int32)
    buf[:, 2 : NW + 2] = words
    stats = torch.randint(-(2**40), 2**40, (P, 3))
    stats[4, 0] = 2**62  # a base past int32
    stats[5, 0] = -(2**50)
    return [buf[:, 2 : NW + 2], stats[:, 0]]


def get_init_inputs():
    return [7]
