"""Triton col2im (F.fold, kernel 3, padding 1, stride 2) as a gather: no atomics.

One program per (batch x channel, block of 64 output pixels) (H * W = 168: tail 40). For every
tap (kh, kw) an output pixel (h, w) receives the column value of window (oh, ow) with
h = oh * STRIDE - PAD + kh, i.e. ih = h + PAD - kh must be >= 0, divisible by STRIDE and give
oh = ih // STRIDE < OH (the same for w); other taps are masked out. The value is read from row
(b * C + c) * 9 + kh * 3 + kw of cols, column oh * OW + ow, and the nine taps are summed in fp32.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

KS = 3
PAD = 1
STRIDE = 2


@triton.jit
def fold_kernel(
    cols_ptr,
    out_ptr,
    H,
    W,
    OH,
    OW,
    L,
    KS: tl.constexpr,
    PAD: tl.constexpr,
    STRIDE: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid_bc = tl.program_id(0)
    pid_p = tl.program_id(1)
    p = pid_p * BLOCK + tl.arange(0, BLOCK)
    pmask = p < H * W
    h = p // W
    w = p % W
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in tl.static_range(KS):
        for kw in tl.static_range(KS):
            ih = h + PAD - kh
            iw = w + PAD - kw
            oh = ih // STRIDE
            ow = iw // STRIDE
            valid = pmask & (ih >= 0) & (iw >= 0) & (oh < OH) & (ow < OW)
            valid = valid & (ih % STRIDE == 0) & (iw % STRIDE == 0)
            row = pid_bc * KS * KS + kh * KS + kw
            acc += tl.load(cols_ptr + row * L + oh * OW + ow, mask=valid, other=0.0)
    tl.store(out_ptr + pid_bc * H * W + p, acc, mask=pmask)


class ModelNew(nn.Module):
    def __init__(self, out_h: int, out_w: int):
        super().__init__()
        self.out_h = out_h
        self.out_w = out_w

    def forward(self, cols: torch.Tensor) -> torch.Tensor:
        cols = cols.contiguous()
        B, CK, L = cols.shape
        C = CK // (KS * KS)
        H, W = self.out_h, self.out_w
        OH = (H + 2 * PAD - KS) // STRIDE + 1
        OW = (W + 2 * PAD - KS) // STRIDE + 1
        out = torch.empty((B, C, H, W), dtype=cols.dtype, device=cols.device)
        BLOCK = 64
        grid = (B * C, triton.cdiv(H * W, BLOCK))
        fold_kernel[grid](cols, out, H, W, OH, OW, L, KS=KS, PAD=PAD, STRIDE=STRIDE, BLOCK=BLOCK)
        return out
