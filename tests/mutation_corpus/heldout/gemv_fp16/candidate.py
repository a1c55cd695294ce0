"""GEMV: each program owns 32 rows of W, walks K in 128-wide blocks, fp32 accumulator, fp16 store."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(w_ptr, x_ptr, y_ptr, M, K, stride_wm, stride_wk, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_mask = ks < K
        w = tl.load(w_ptr + rows[:, None] * stride_wm + ks[None, :] * stride_wk,
                    mask=row_mask[:, None] & k_mask[None, :], other=0.0)
        x = tl.load(x_ptr + ks, mask=k_mask, other=0.0)
        acc += tl.sum(w.to(tl.float32) * x.to(tl.float32)[None, :], axis=1)
    tl.store(y_ptr + rows, acc.to(tl.float16), mask=row_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, weight: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        M, K = weight.shape
        x = x.contiguous()
        y = torch.empty(M, dtype=weight.dtype, device=weight.device)
        BLOCK_M = 32
        gemv_kernel[(triton.cdiv(M, BLOCK_M),)](weight, x, y, M, K, weight.stride(0), weight.stride(1),
                                               BLOCK_M=BLOCK_M, BLOCK_K=128)
        return y
