"""Triton cumulative trapezoid: tiles of BLOCK_R = 8 rows (R = 45: tail 5) walking the L - 1
intervals in chunks of BLOCK_T = 128 (699 intervals: tail 59), one running fp32 total per row.

Interval t of a row pairs the samples t and t + 1 (two loads, the second shifted by one, both
masked to t < L - 1); its area 0.5 (y_t + y_{t+1}) (x_{t+1} - x_t) is taken in fp32. The chunk's
inclusive `tl.cumsum` plus the row's running total is stored at out[r, t] (rows L - 1 apart),
rounded once to y's dtype; the chunk's sum then goes into the running total.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumtrapz_kernel(y_ptr, x_ptr, out_ptr, R, L, BLOCK_R: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    lanes = tl.arange(0, BLOCK_T)
    rm = rows < R
    carry = tl.zeros([BLOCK_R], dtype=tl.float32)
    for start in range(0, L - 1, BLOCK_T):
        t = start + lanes
        m = rm[:, None] & (t[None, :] < L - 1)
        p = rows[:, None] * L + t[None, :]
        y0 = tl.load(y_ptr + p, mask=m, other=0.0)
        y1 = tl.load(y_ptr + p + 1, mask=m, other=0.0)
        x0 = tl.load(x_ptr + p, mask=m, other=0.0)
        x1 = tl.load(x_ptr + p + 1, mask=m, other=0.0)
        area = 0.5 * (y0.to(tl.float32) + y1.to(tl.float32)) * (x1.to(tl.float32) - x0.to(tl.float32))
        cum = tl.cumsum(area, axis=1) + carry[:, None]
        q = rows[:, None] * (L - 1) + t[None, :]
        tl.store(out_ptr + q, cum.to(out_ptr.dtype.element_ty), mask=m)
        carry = tl.sum(area, axis=1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, y, x):
        y = y.contiguous()
        x = x.contiguous()
        R, L = y.shape
        out = torch.empty((R, L - 1), dtype=y.dtype, device=y.device)
        BLOCK_R, BLOCK_T = 8, 128
        grid = (triton.cdiv(R, BLOCK_R),)
        cumtrapz_kernel[grid](y, x, out, R, L, BLOCK_R=BLOCK_R, BLOCK_T=BLOCK_T)
        return out
