"""Triton DropPath + LayerScale residual. One program per (BLOCK_N = 64 tokens, BLOCK_C = 64 channels) tile of a
sample (N 197, C 200: tails 5, 8), samples on grid axis 2: x and y loaded through their strides passed from the host
(y is the transpose of a channel-first buffer), widened to fp32, gamma per channel (broadcast over the tokens), the
keep flag of the sample selecting x + gamma y / KEEP_PROB or x alone (a dropped branch never reaches the output);
one rounding to bf16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def droppath_kernel(
    x_ptr,
    y_ptr,
    g_ptr,
    k_ptr,
    out_ptr,
    N,
    C,
    sx_b,
    sx_n,
    sy_b,
    sy_n,
    sy_c,
    inv_kp,
    BLOCK_N: tl.constexpr,
    BLOCK_C: tl.constexpr,
):
    n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    b = tl.program_id(2)
    m = (n[:, None] < N) & (c[None, :] < C)
    x = tl.load(x_ptr + b * sx_b + n[:, None] * sx_n + c[None, :], mask=m, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + b * sy_b + n[:, None] * sy_n + c[None, :] * sy_c, mask=m, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + c, mask=c < C, other=0.0)
    kept = tl.load(k_ptr + b)
    branch = g[None, :] * y * inv_kp
    out = x + kept.to(tl.float32) * branch
    tl.store(out_ptr + b * sx_b + n[:, None] * sx_n + c[None, :], out.to(tl.bfloat16), mask=m)


class ModelNew(nn.Module):
    def __init__(self, keep_prob):
        super().__init__()
        self.keep_prob = keep_prob

    def forward(self, x, y, gamma, keep):
        B, N, C = x.shape
        out = torch.empty_like(x)
        BLOCK_N, BLOCK_C = 64, 64
        grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(C, BLOCK_C), B)
        droppath_kernel[grid](
            x,
            y,
            gamma,
            keep,
            out,
            N,
            C,
            x.stride(0),
            x.stride(1),
            y.stride(0),
            y.stride(1),
            y.stride(2),
            1.0 / self.keep_prob,
            BLOCK_N=BLOCK_N,
            BLOCK_C=BLOCK_C,
        )
        return out
