"""Triton int8 x int8 GEMM (a @ w.T, w in nn.Linear layout) with an int32 accumulator, requantised to int8 per output column.

One program per (BM x BN) output tile loops over K in BK chunks (K tail masked to zero), takes
tl.dot of the int8 tiles into an int32 accumulator, multiplies by the column scale in fp32,
rounds to nearest (ties to even), clamps to [-128, 127] and stores int8.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def int8_gemm_requant_kernel(
    a_ptr,
    w_ptr,
    scale_ptr,
    out_ptr,
    M,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mm = rm < M
    mn = rn < N
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        mk = kk < K
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=mm[:, None], other=0)
        b = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=mn[None, :], other=0)
        acc += tl.dot(a, b, out_dtype=tl.int32)
    s = tl.load(scale_ptr + rn, mask=mn, other=0.0)
    y = acc.to(tl.float32) * s[None, :]
    r = tl.floor(y + 0.5)
    tie = (r - y) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    r = tl.where(tie & odd, r - 1.0, r)
    r = tl.minimum(tl.maximum(r, -128.0), 127.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], r.to(tl.int8), mask=mm[:, None] & mn[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        w = w.contiguous()
        scale = scale.contiguous()
        M, K = a.shape
        N = w.shape[0]
        out = torch.empty((M, N), device=a.device, dtype=torch.int8)
        BM, BN, BK = 32, 32, 64
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        int8_gemm_requant_kernel[grid](a, w, scale, out, M, N, K, BM=BM, BN=BN, BK=BK)
        return out
