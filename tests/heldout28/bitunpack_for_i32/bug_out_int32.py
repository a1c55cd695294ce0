"""Triton bit-unpacking with a frame of reference. One program per (BLOCK_P = 8 pages, BLOCK_N = 128 values) tile
(P 40; N 1001: tail 105), values on grid axis 0 and pages on grid axis 1: value i starts at bit i W, in word
lo = bit >> 5 at shift sh = bit & 31; the words lo and lo + 1 (masked to lo + 1 < NW) are loaded through the page
stride passed from the host (a window of a page buffer), widened to int64 and masked to their unsigned 32-bit
patterns, joined as (w0 >> sh) | (w1 << (32 - sh)) and cut to W bits; the page base (a strided column of the
statistics table, stride from the host) broadcast over the values; one int64 output.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bitunpack_kernel(
    w_ptr, base_ptr, out_ptr, P, NW, N, s_page, s_base, W: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr
):
    i = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    p = tl.program_id(1) * BLOCK_P + tl.arange(0, BLOCK_P)
    pm = p < P
    m = pm[:, None] & (i < N)[None, :]
    bit = i * W
    lo = (bit >> 5)[None, :]
    sh = (bit & 31)[None, :]
    row = w_ptr + p[:, None] * s_page
    w0 = tl.load(row + lo, mask=m, other=0).to(tl.int64) & 0xFFFFFFFF
    w1 = tl.load(row + lo + 1, mask=m & (lo + 1 < NW), other=0).to(tl.int64) & 0xFFFFFFFF
    v = ((w0 >> sh) | (w1 << (32 - sh))) & ((1 << W) - 1)
    b = tl.load(base_ptr + p * s_base, mask=pm, other=0)
    tl.store(out_ptr + p[:, None] * N + i[None, :], b[:, None] + v, mask=m)


class ModelNew(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width

    def forward(self, words, base):
        P, NW = words.shape
        N = NW * 32 // self.width
        out = torch.empty(P, N, dtype=torch.int32, device=words.device)
        BLOCK_P, BLOCK_N = 8, 128
        bitunpack_kernel[(triton.cdiv(N, BLOCK_N), triton.cdiv(P, BLOCK_P))](
            words,
            base,
            out,
            P,
            NW,
            N,
            words.stride(0),
            base.stride(0),
            W=self.width,
            BLOCK_P=BLOCK_P,
            BLOCK_N=BLOCK_N,
        )
        return out
