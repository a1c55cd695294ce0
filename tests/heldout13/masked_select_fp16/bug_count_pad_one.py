"""Triton masked_select as a three-kernel stream compaction.

The flattened input is cut into blocks of 1024 (tail 798). Kernel 1 counts each block's True
mask entries (int32). Kernel 2 (one program, blocks padded to 64 lanes) turns the counts into
exclusive block offsets, cumsum(count) - count, and writes the total after them. The host reads
the total to size the output. Kernel 3 gives every selected element the position
block_offset + (number of selected elements before it in the block), an exclusive tl.cumsum of
the mask, and stores x there (only the selected lanes store).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def count_kernel(m_ptr, count_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = tl.load(m_ptr + offs, mask=offs < n, other=1).to(tl.int32)
    tl.store(count_ptr + pid, tl.sum(m, axis=0))


@triton.jit
def block_offsets_kernel(count_ptr, offset_ptr, nblocks, BLOCK_P: tl.constexpr):
    ps = tl.arange(0, BLOCK_P)
    c = tl.load(count_ptr + ps, mask=ps < nblocks, other=0)
    incl = tl.cumsum(c, axis=0)
    tl.store(offset_ptr + ps, incl - c, mask=ps < nblocks)
    tl.store(offset_ptr + nblocks, tl.sum(c, axis=0))


@triton.jit
def compact_kernel(x_ptr, m_ptr, offset_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    m = tl.load(m_ptr + offs, mask=inb, other=0).to(tl.int32)
    x = tl.load(x_ptr + offs, mask=inb, other=0.0)
    base = tl.load(offset_ptr + pid)
    pos = base + tl.cumsum(m, axis=0) - m
    tl.store(out_ptr + pos, x, mask=m != 0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x.contiguous().view(-1)
        m = mask.contiguous().view(-1).view(torch.uint8)
        n = x.numel()
        BLOCK = 1024
        nblocks = triton.cdiv(n, BLOCK)
        counts = torch.empty(nblocks, dtype=torch.int32, device=x.device)
        offsets = torch.empty(nblocks + 1, dtype=torch.int32, device=x.device)
        count_kernel[(nblocks,)](m, counts, n, BLOCK=BLOCK)
        block_offsets_kernel[(1,)](counts, offsets, nblocks, BLOCK_P=triton.next_power_of_2(nblocks))
        total = int(offsets[nblocks].item())
        out = torch.empty(total, dtype=x.dtype, device=x.device)
        compact_kernel[(nblocks,)](x, m, offsets, out, n, BLOCK=BLOCK)
        return out
