"""Triton masked joint histogram: the counts start at zero and one program per BLOCK = 256
pixels of the flattened image pairs (3 x 40 x 57 = 6,840 pixels: tail 184) loads a, b (uint8)
and the ROI mask, computes the bins value * BINS // 256 in int32 and adds 1 to
count[bin_a * BINS + bin_b] with an atomic add for every masked pixel (int32 adds: exact in any
order).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def joint_hist_kernel(a_ptr, b_ptr, m_ptr, hist_ptr, NPIX, BINS, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < NPIX
    a = tl.load(a_ptr + offs, mask=inb, other=0).to(tl.int32)
    b = tl.load(b_ptr + offs, mask=inb, other=0).to(tl.int32)
    roi = tl.load(m_ptr + offs, mask=inb, other=0) != 0
    bin_a = a * BINS // 256
    bin_b = b * BINS // 256
    ones = tl.full([BLOCK], 1, tl.int32)
    tl.atomic_add(hist_ptr + bin_b * BINS + bin_a, ones, mask=inb & roi)


class ModelNew(nn.Module):
    def __init__(self, bins):
        super().__init__()
        self.bins = bins

    def forward(self, a, b, mask):
        a, b, mask = a.contiguous(), b.contiguous(), mask.contiguous()
        hist = torch.zeros(self.bins, self.bins, dtype=torch.int32, device=a.device)
        npix = a.numel()
        BLOCK = 256
        grid = (triton.cdiv(npix, BLOCK),)
        joint_hist_kernel[grid](a, b, mask, hist, npix, self.bins, BLOCK=BLOCK)
        return hist
