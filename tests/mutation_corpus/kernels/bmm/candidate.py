"""Batched matmul: program_id(2) selects the batch, explicit batch strides, fp32 accumulation over K blocks."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(A, B, C, M, N, K,
               stride_ab, stride_am, stride_ak,
               stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    A += batch * stride_ab
    B += batch * stride_bb
    C += batch * stride_cb
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        offs_k = k + tl.arange(0, BLOCK_K)
        a = tl.load(A + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(B + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(C + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        batch, M, K = a.shape
        _, _, N = b.shape
        c = torch.empty((batch, M, N), device=a.device, dtype=a.dtype)
        grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]), batch)  # noqa: E731
        bmm_kernel[grid](a, b, c, M, N, K,
                         a.stride(0), a.stride(1), a.stride(2),
                         b.stride(0), b.stride(1), b.stride(2),
                         c.stride(0), c.stride(1), c.stride(2),
                         BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
        return c
