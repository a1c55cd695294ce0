"""Triton partial interleaved rotary embedding: one program per token (all heads).

Rotary part: a (8 heads, 5 real) x (16 pairs, ROT / 2 = 12 real) tile; pair p reads channels
2p and 2p + 1, w_p = exp(-(2p / ROT) ln BASE), angle = pos w_p in fp32. Pass-through part: a
(8 heads x 128 lanes) tile of channels ROT + r, r < HEAD_DIM - ROT = 72, copied. Token t's head h
starts at (t HEADS + h) HEAD_DIM; pos is read at t (flat over batch and sequence).
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

ROT = 24
BASE = 10000.0


@triton.jit
def rope_gptj_kernel(
    x_ptr,
    pos_ptr,
    out_ptr,
    H,
    D,
    ROT: tl.constexpr,
    LN_BASE: tl.constexpr,
    BLOCK_H: tl.constexpr,
    BLOCK_P: tl.constexpr,
    BLOCK_R: tl.constexpr,
):
    tok = tl.program_id(0)
    hs = tl.arange(0, BLOCK_H)
    ps = tl.arange(0, BLOCK_P)
    head_base = (tok * H + hs) * D
    pos = tl.load(pos_ptr + tok).to(tl.float32)
    inv_freq = tl.exp(-(2.0 * ps.to(tl.float32) / ROT) * LN_BASE)
    ang = pos * inv_freq
    c = tl.cos(ang)[None, :]
    s = tl.sin(ang)[None, :]
    rmask = (hs[:, None] < H) & (ps[None, :] < ROT // 2)
    even_off = head_base[:, None] + 2 * ps[None, :]
    odd_off = head_base[:, None] + 2 * ps[None, :] + 1
    xe = tl.load(x_ptr + even_off, mask=rmask, other=0.0).to(tl.float32)
    xo = tl.load(x_ptr + odd_off, mask=rmask, other=0.0).to(tl.float32)
    oe = xe * c + xo * s
    oo = xo * c + xe * s
    tl.store(out_ptr + even_off, oe.to(out_ptr.dtype.element_ty), mask=rmask)
    tl.store(out_ptr + odd_off, oo.to(out_ptr.dtype.element_ty), mask=rmask)
    cols = ROT + tl.arange(0, BLOCK_R)
    pmask = (hs[:, None] < H) & (cols[None, :] < D)
    pass_off = head_base[:, None] + cols[None, :]
    tl.store(out_ptr + pass_off, tl.load(x_ptr + pass_off, mask=pmask, other=0.0), mask=pmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        x, pos = x.contiguous(), pos.contiguous()
        B, S, H, D = x.shape
        out = torch.empty_like(x)
        BLOCK_H = triton.next_power_of_2(H)
        BLOCK_P = triton.next_power_of_2(ROT // 2)
        BLOCK_R = triton.next_power_of_2(D - ROT)
        rope_gptj_kernel[(B * S,)](
            x, pos, out, H, D, ROT=ROT, LN_BASE=math.log(BASE), BLOCK_H=BLOCK_H, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R
        )
        return out
