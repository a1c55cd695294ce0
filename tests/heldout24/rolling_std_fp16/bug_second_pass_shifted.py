"""Triton rolling standard deviation: one program per (BLOCK_R = 8) series x (BLOCK_T = 128)
window starts (R = 24; L - W + 1 = 291: tail 35). Two static loops over the W window taps (W a
constexpr from the constructor) load x[r, t + k] (fp16 widened to fp32, through the row stride
passed from the host): the first sums the window to its mean, the second sums the squared
deviations from that mean (two-pass: no cancellation on series far from 0), and the unbiased
variance sum / (W - 1) is square-rooted and stored.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rolling_std_kernel(x_ptr, out_ptr, R, T_OUT, sx, so, W: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_T: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    m = (rows[:, None] < R) & (t[None, :] < T_OUT)
    base = x_ptr + rows[:, None] * sx + t[None, :]
    s = tl.zeros([BLOCK_R, BLOCK_T], dtype=tl.float32)
    for k in tl.static_range(W):
        s += tl.load(base + k, mask=m, other=0.0).to(tl.float32)
    mean = s / W
    ss = tl.zeros([BLOCK_R, BLOCK_T], dtype=tl.float32)
    for k in tl.static_range(W):
        d = tl.load(base + k + 1, mask=m, other=0.0).to(tl.float32) - mean
        ss += d * d
    tl.store(out_ptr + rows[:, None] * so + t[None, :], tl.sqrt(ss / (W - 1)), mask=m)


class ModelNew(nn.Module):
    def __init__(self, window):
        super().__init__()
        self.window = window

    def forward(self, x):
        R, L = x.shape
        t_out = L - self.window + 1
        out = torch.empty(R, t_out, dtype=torch.float32, device=x.device)
        BLOCK_R, BLOCK_T = 8, 128
        grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(t_out, BLOCK_T))
        rolling_std_kernel[grid](
            x, out, R, t_out, x.stride(0), out.stride(0), W=self.window, BLOCK_R=BLOCK_R, BLOCK_T=BLOCK_T
        )
        return out
