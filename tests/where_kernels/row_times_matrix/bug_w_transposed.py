import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_times_matrix_kernel(x_ptr, w_ptr, out_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    k = tl.arange(0, BLOCK_K)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * K + k, mask=k < K, other=0.0)
    tile = cols[None, :] * K + k[:, None]
    w = tl.load(w_ptr + tile, mask=(k[:, None] < K) & (cols[None, :] < N), other=0.0)
    total = tl.sum(tl.sum(tl.abs(w), axis=1), axis=0)
    tl.store(out_ptr + row * N + cols, tl.sum(x[:, None] * w, axis=0) / total, mask=cols < N)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        x, w = x.contiguous(), w.contiguous()
        rows, k = x.shape
        n = w.shape[1]
        out = torch.empty((rows, n), device=x.device, dtype=x.dtype)
        row_times_matrix_kernel[(rows,)](x, w, out, k, n, BLOCK_K=64, BLOCK_N=32)
        return out
