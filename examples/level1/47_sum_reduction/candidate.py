"""Correct Triton sum over dim 1 (keepdim): fp32 accumulator, fp16 result.

One program per (batch, block of BLOCK_N columns); it walks the reduced dimension in chunks of
BLOCK_R rows, upcasts each chunk to fp32, sums it and adds it to an fp32 accumulator, and
rounds to the output dtype once at the end. Handles only dim=1 of a 3-d input (the task's).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(
    x_ptr, out_ptr,
    R, N,
    stride_xb, stride_xr, stride_xn, stride_ob, stride_on,
    BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid_b = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_r = tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        r = r0 + offs_r
        x = tl.load(
            x_ptr + pid_b * stride_xb + r[:, None] * stride_xr + offs_n[None, :] * stride_xn,
            mask=(r[:, None] < R) & (offs_n[None, :] < N), other=0.0,
        )
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + pid_b * stride_ob + offs_n * stride_on, acc.to(out_ptr.dtype.element_ty), mask=offs_n < N)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        assert dim == 1, "this kernel reduces dim 1 of a 3-d tensor"
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, R, N = x.shape
        out = torch.empty((B, 1, N), device=x.device, dtype=x.dtype)
        BLOCK_R, BLOCK_N = 256, 64
        grid = (B, triton.cdiv(N, BLOCK_N))
        sum_dim1_kernel[grid](
            x, out, R, N,
            x.stride(0), x.stride(1), x.stride(2), out.stride(0), out.stride(2),
            BLOCK_R=BLOCK_R, BLOCK_N=BLOCK_N,
        )
        return out
