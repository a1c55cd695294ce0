"""BUG: the grid is sized with floor division and nothing is masked.

grid = (M // BLOCK_M, N // BLOCK_N) launches no program for the last, partial tile of rows and
columns when M or N is not a multiple of the block (N = 288 with 64x64 tiles: 4 x 4 programs
cover only the top-left 256 x 256), and the loads/stores carry no masks. The output comes from
torch.empty, so its last 32 rows and columns are never written: they hold whatever the
allocation held (NaN under the harness's poisoning).

The K loop is left unmasked too; that is harmless here only because K = 288 is a multiple of
BLOCK_K = 32.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + k[None, :] * stride_ak)  # BUG: no mask
        b = tl.load(b_ptr + k[:, None] * stride_bk + offs_n[None, :] * stride_bn)  # BUG: no mask
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        _, N = B.shape
        C = torch.empty((M, N), device=A.device, dtype=A.dtype)
        BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
        grid = (M // BLOCK_M, N // BLOCK_N)  # BUG: floor division drops the partial tiles
        matmul_kernel[grid](
            A, B, C, M, N, K,
            A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        )
        return C
