"""Triton sint64 varint encoding. One program per BLOCK = 256 values (N 5000: tail 136): x loaded through the
value stride passed from the host (a column of a (key, value) record buffer), z = (x << 1) ^ (x >> 63) in int64
(wrapping), then as uint64 bits (logical shifts) the 7-bit groups z >> 7k of a (BLOCK, 16) tile whose lanes
k >= 10 are kept out; the byte count 1 + #{1 <= k < 10: group k != 0}; continuation bits on all but the last
byte, zero bytes after it; three outputs.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def varint_kernel(x_ptr, z_ptr, enc_ptr, n_ptr, N, sx, se_n, BLOCK: tl.constexpr, KPAD: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    imask = i < N
    x = tl.load(x_ptr + i * sx, mask=imask, other=0)
    z = (x << 1) ^ (x >> 63)
    zu = z.to(tl.uint64, bitcast=True)
    k = tl.arange(0, KPAD)
    kmask = k < 10
    groups = zu[:, None] >> (7 * k[None, :])
    nbytes = 1 + tl.sum(((groups != 0) & (k[None, :] >= 1) & kmask[None, :]).to(tl.int32), axis=1)
    byte = (groups & 0x7F) | tl.where(k[None, :] < nbytes[:, None] - 1, 0x80, 0)
    byte = tl.where(k[None, :] < nbytes[:, None], byte, 0)
    tl.store(z_ptr + i, z, mask=imask)
    tl.store(n_ptr + i, nbytes, mask=imask)
    tl.store(enc_ptr + i[:, None] * se_n + k[None, :], byte.to(tl.uint8), mask=imask[:, None] & kmask[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        N = x.shape[0]
        z = torch.empty(N, dtype=torch.int64, device=x.device)
        enc = torch.empty(N, 10, dtype=torch.uint8, device=x.device)
        n = torch.empty(N, dtype=torch.int64, device=x.device)
        BLOCK = 256
        varint_kernel[(triton.cdiv(N, BLOCK),)](x, z, enc, n, N, x.stride(0), enc.stride(0), BLOCK=BLOCK, KPAD=16)
        return z, enc, n
