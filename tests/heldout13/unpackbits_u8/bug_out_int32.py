"""Triton unpackbits (big bit order) with a bit count.

One program per (16 rows x 64 bits) tile of the (R, NBITS) output (row tail 12, bit tail 5):
output bit k of a row reads byte k // 8 of the row (a row of x has NBYTES bytes) and takes bit
7 - k % 8 of it; the 0 / 1 values are stored as uint8. NBITS = 8 NBYTES - PAD_BITS (the padding
bits of the last byte are dropped); NBITS and NBYTES are passed separately.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

PAD_BITS = 3


@triton.jit
def unpackbits_kernel(x_ptr, out_ptr, R, NBYTES, NBITS, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_k = tl.program_id(0)
    pid_r = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    ks = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    mask = (rows[:, None] < R) & (ks[None, :] < NBITS)
    byte = tl.load(x_ptr + rows[:, None] * NBYTES + ks[None, :] // 8, mask=mask, other=0)
    bit = (byte.to(tl.int32) >> (7 - ks[None, :] % 8)) & 1
    tl.store(out_ptr + rows[:, None] * NBITS + ks[None, :], bit, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        R, nbytes = x.shape
        nbits = 8 * nbytes - PAD_BITS
        out = torch.empty((R, nbits), dtype=torch.int32, device=x.device)
        BLOCK_R, BLOCK_K = 16, 64
        grid = (triton.cdiv(nbits, BLOCK_K), triton.cdiv(R, BLOCK_R))
        unpackbits_kernel[grid](x, out, R, nbytes, nbits, BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K)
        return out
