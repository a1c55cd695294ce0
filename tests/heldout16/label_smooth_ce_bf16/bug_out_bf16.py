"""Triton label-smoothed cross-entropy (reduction none): one program per row.

A loop over chunks of 256 classes (CLASSES 1000: tail 232) keeps an online max m and rescaled sum
s of exp(x - m) (padding lanes -inf: exp gives 0) and the plain sum of the logits (padding lanes
excluded), all fp32 from bf16 loads. lse = m + log s; nll = lse - x_t (x_t read at a clamped
index); smooth = sum_j (lse - x_j) = C lse - sum x; loss = (1 - EPS) nll + EPS / C smooth, 0 for
ignored rows. fp32 out.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

EPS = 0.1
IGNORE = -100


@triton.jit
def ls_ce_kernel(x_ptr, t_ptr, out_ptr, C, EPS: tl.constexpr, IGNORE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = x_ptr + row * C
    m = tl.full([], float("-inf"), tl.float32)
    s = tl.zeros([], dtype=tl.float32)
    sx = tl.zeros([], dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        mask = offs < C
        x = tl.load(row_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        sx += tl.sum(tl.where(mask, x, 0.0), axis=0)
        m = m_new
    lse = m + tl.log(s)
    t = tl.load(t_ptr + row)
    valid = t != IGNORE
    x_t = tl.load(row_ptr + tl.where(valid, t, 0)).to(tl.float32)
    nll = lse - x_t
    smooth = C * lse - sx
    loss = (1.0 - EPS) * nll + EPS / C * smooth
    tl.store(out_ptr + row, tl.where(valid, loss, 0.0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        logits, target = logits.contiguous(), target.contiguous()
        R, C = logits.shape
        out = torch.empty((R,), dtype=logits.dtype, device=logits.device)
        ls_ce_kernel[(R,)](logits, target, out, C, EPS=EPS, IGNORE=IGNORE, BLOCK=256)
        return out
