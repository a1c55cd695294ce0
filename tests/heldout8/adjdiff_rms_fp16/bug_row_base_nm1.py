"""Triton RMS of adjacent differences per row of a contiguous (R, N) fp16 tensor, fp32 out.

One program per row. Pairs j = 0 .. N - 2 are visited in chunks of BLOCK: x[j] and x[j + 1] are
loaded (both masked by j < N - 1), converted to fp32 before subtracting, and the squared
differences are accumulated in fp32; out = sqrt(sum / (N - 1)).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def adjdiff_rms_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * (N - 1)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N - 1, BLOCK):
        j = start + tl.arange(0, BLOCK)
        mask = j < N - 1
        left = tl.load(base + j, mask=mask, other=0.0)
        right = tl.load(base + j + 1, mask=mask, other=0.0)
        d = right.to(tl.float32) - left.to(tl.float32)
        acc += d * d
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, tl.sqrt(total / (N - 1)))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        R, N = x.shape
        out = torch.empty(R, device=x.device, dtype=torch.float32)
        adjdiff_rms_kernel[(R,)](x, out, N, BLOCK=256)
        return out
