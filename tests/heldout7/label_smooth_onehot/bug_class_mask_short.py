"""Triton label-smoothed one-hot encoding, no scatter: every output element is computed.

One program per (row tile, class tile) of the (R, C) fp32 output. Each program loads the
labels of its rows once and compares them with its class indices: the hit gets
(1 - eps) + eps / C, every other class eps / C.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def smooth_onehot_kernel(
    labels_ptr,
    out_ptr,
    R,
    C,
    eps,
    BLOCK_R: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    row_mask = rows < R
    labels = tl.load(labels_ptr + rows, mask=row_mask, other=-1)
    hit = labels[:, None] == cols[None, :]
    off_value = eps / C
    on_value = (1.0 - eps) + off_value
    vals = tl.where(hit, on_value, off_value)
    mask = row_mask[:, None] & (cols[None, :] < C - 1)
    tl.store(out_ptr + rows[:, None] * C + cols[None, :], vals, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_classes: int, eps: float):
        super().__init__()
        self.num_classes = num_classes
        self.eps = eps

    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        labels = labels.contiguous()
        R = labels.shape[0]
        C = self.num_classes
        out = torch.empty((R, C), device=labels.device, dtype=torch.float32)
        BLOCK_R, BLOCK_C = 32, 32
        grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
        smooth_onehot_kernel[grid](labels, out, R, C, self.eps, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
        return out
