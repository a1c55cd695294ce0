"""Triton trimmed mean: one program per row, the whole row (N = 200) in a 256-lane block (tail 56).

Padding lanes load +inf, so tl.sort (ascending) puts them after every real value; sorted
positions K <= j < N - K (K = int(0.1 N), from the host) are kept, widened to fp32 and summed, and
the sum is divided by the number kept, N - 2K. fp32 out.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

TRIM = 0.1


@triton.jit
def trimmed_mean_kernel(x_ptr, out_ptr, N, K, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    j = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + j, mask=j < N, other=float("inf"))
    s = tl.sort(x)
    keep = (j >= K) & (j < N - K)
    total = tl.sum(tl.where(keep, s.to(tl.float32), 0.0), axis=0)
    tl.store(out_ptr + row, total / (N - 2 * K))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        k = int(TRIM * N)
        out = torch.empty(R, device=x.device, dtype=torch.float32)
        BLOCK = triton.next_power_of_2(N)
        trimmed_mean_kernel[(R,)](x, out, N, k, BLOCK=BLOCK)
        return out
