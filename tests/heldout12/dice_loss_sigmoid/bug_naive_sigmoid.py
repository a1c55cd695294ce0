"""Triton per-sample soft Dice loss on sigmoid(logits), bf16 logits, bool target, fp32 loss.

1 - (2 I + S) / (P + T + S) equals E / (P + T + S) with E = sum p (1 - t) + (1 - p) t, a sum of
non-negative terms, so the tiny loss of a confident model is computed without the cancellation
of 1 - ratio; 1 - p is taken as sigmoid(-x) (1 / (1 + exp(x))), not as a difference. One program
per sample; chunks of 512 of its 3034 values (5 x 512 + 474), logits widened to fp32, padding
lanes kept out of both sums with tl.where (a masked logit of 0 would add sigmoid(0) = 0.5).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

SMOOTH = 1.0


@triton.jit
def dice_loss_kernel(x_ptr, t_ptr, out_ptr, L, smooth, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    x_row = x_ptr + pid * L
    t_row = t_ptr + pid * L
    err = tl.zeros((BLOCK,), tl.float32)
    tot = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, L, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < L
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_row + offs, mask=mask, other=0).to(tl.float32)
        p = tl.exp(x) / (1.0 + tl.exp(x))
        q = 1.0 / (1.0 + tl.exp(x))
        err += tl.where(mask, p * (1.0 - t) + q * t, 0.0)
        tot += tl.where(mask, p + t, 0.0)
    loss = tl.sum(err, axis=0) / (tl.sum(tot, axis=0) + smooth)
    tl.store(out_ptr + pid, loss)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        logits = logits.contiguous()
        target = target.contiguous()
        B = logits.shape[0]
        L = logits[0].numel()
        out = torch.empty((B,), dtype=torch.float32, device=logits.device)
        dice_loss_kernel[(B,)](logits, target, out, L, SMOOTH, BLOCK=512)
        return out
