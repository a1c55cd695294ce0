"""Triton sinusoidal positional encoding added at per-sample start positions (interleaved layout).

One program per (16 tokens, sample): S = 50 gives a tail of 2 tokens; one 128-lane tile covers a
row (D = 96 real). For lane d: pair i = d // 2, w = exp(2i (-ln BASE / D)), angle
(start[b] + s) w in fp32, sin on even lanes and cos on odd lanes, added to x in fp32 and rounded
once to fp16.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

BASE = 10000.0


@triton.jit
def pe_add_kernel(x_ptr, start_ptr, out_ptr, S, D, neg_log_base_over_d, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_s = tl.program_id(0)
    pid_b = tl.program_id(1)
    s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    d = tl.arange(0, BLOCK_D)
    mask = (s[:, None] < S) & (d[None, :] < D)
    offs = pid_b * S * D + s[:, None] * D + d[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    pos = tl.load(start_ptr + pid_b) + s
    i2 = (d // 2) * 2
    w = tl.exp(i2.to(tl.float32) * neg_log_base_over_d).to(tl.float16)
    ang = pos[:, None].to(tl.float32) * w[None, :]
    pe = tl.where((d % 2 == 0)[None, :], tl.sin(ang), tl.cos(ang))
    tl.store(out_ptr + offs, (x + pe).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
        x, start = x.contiguous(), start.contiguous()
        B, S, D = x.shape
        out = torch.empty_like(x)
        BLOCK_S = 16
        BLOCK_D = triton.next_power_of_2(D)
        grid = (triton.cdiv(S, BLOCK_S), B)
        pe_add_kernel[grid](x, start, out, S, D, -math.log(BASE) / D, BLOCK_S=BLOCK_S, BLOCK_D=BLOCK_D)
        return out
