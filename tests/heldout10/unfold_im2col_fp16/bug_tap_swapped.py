"""Triton F.unfold (im2col) of a contiguous NCHW tensor, square kernel KS, padding P, stride S.

The output (B, C * KS * KS, L) is tiled (BLOCK_R rows x BLOCK_L columns) per batch element, a 3-D
grid. Row r is channel c = r // (KS * KS) and tap (kh, kw) = divmod(r % (KS * KS), KS); column l
is the output position (oh, ow) = divmod(l, OW). The tap reads x[b, c, oh * S - P + kh,
ow * S - P + kw], 0 where that falls in the padding.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

KERNEL = 3
PADDING = 1
STRIDE = 2


@triton.jit
def unfold_kernel(
    x_ptr,
    out_ptr,
    C,
    H,
    W,
    OW,
    L,
    KS: tl.constexpr,
    P: tl.constexpr,
    S: tl.constexpr,
    BLOCK_R: tl.constexpr,
    BLOCK_L: tl.constexpr,
):
    pid_r = tl.program_id(0)
    pid_l = tl.program_id(1)
    b = tl.program_id(2)
    R = C * KS * KS
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_l * BLOCK_L + tl.arange(0, BLOCK_L)
    c = rows // (KS * KS)
    tap = rows % (KS * KS)
    kh = tap % KS
    kw = tap // KS
    oh = cols // OW
    ow = cols % OW
    ih = oh[None, :] * S - P + kh[:, None]
    iw = ow[None, :] * S - P + kw[:, None]
    out_mask = (rows < R)[:, None] & (cols < L)[None, :]
    inside = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    src = x_ptr + b * C * H * W + c[:, None] * H * W + ih * W + iw
    v = tl.load(src, mask=out_mask & inside, other=0.0)
    dst = out_ptr + b * R * L + rows[:, None] * L + cols[None, :]
    tl.store(dst, v, mask=out_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, C, H, W = x.shape
        OH = (H + 2 * PADDING - KERNEL) // STRIDE + 1
        OW = (W + 2 * PADDING - KERNEL) // STRIDE + 1
        L = OH * OW
        R = C * KERNEL * KERNEL
        out = torch.empty(B, R, L, dtype=x.dtype, device=x.device)
        BLOCK_R = 16
        BLOCK_L = 32
        grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(L, BLOCK_L), B)
        unfold_kernel[grid](x, out, C, H, W, OW, L, KS=KERNEL, P=PADDING, S=STRIDE, BLOCK_R=BLOCK_R, BLOCK_L=BLOCK_L)
        return out
