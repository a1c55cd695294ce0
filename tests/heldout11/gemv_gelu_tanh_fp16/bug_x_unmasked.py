"""Triton batched GEMV + bias + tanh-approximated GELU, fp16 in and out, fp32 accumulation.

One program per (block of 32 output features, token). It walks the K = IN_FEATURES axis in chunks
of 128 (the last one masked): a (32, 128) tile of the weight (nn.Linear layout, row n holds output
n's weights) times the token's chunk, reduced along K into an fp32 accumulator. The epilogue adds
the bias and applies GELU-tanh in its sigmoid form, 0.5 z (1 + tanh(u)) = z / (1 + exp(-2 u)),
u = sqrt(2 / pi) (z + 0.044715 z^3): exp(-2 u) may overflow to +inf for very negative z, which
gives z / inf = -0, never NaN.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemv_gelu_kernel(x_ptr, w_ptr, b_ptr, out_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    m = tl.program_id(1)
    n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    nmask = n < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        kmask = k < K
        xv = tl.load(x_ptr + m * K + k).to(tl.float32)
        w = tl.load(w_ptr + n[:, None] * K + k[None, :], mask=nmask[:, None] & kmask[None, :], other=0.0)
        acc += tl.sum(w.to(tl.float32) * xv[None, :], axis=1)
    z = acc + tl.load(b_ptr + n, mask=nmask, other=0.0).to(tl.float32)
    u = 0.7978845608028654 * (z + 0.044715 * z * z * z)
    y = z / (1.0 + tl.exp(-2.0 * u))
    tl.store(out_ptr + m * N + n, y, mask=nmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        weight = weight.contiguous()
        M, K = x.shape
        N = weight.shape[0]
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
        BLOCK_N = 32
        BLOCK_K = 128
        grid = (triton.cdiv(N, BLOCK_N), M)
        gemv_gelu_kernel[grid](x, weight, bias, out, N, K, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
        return out
