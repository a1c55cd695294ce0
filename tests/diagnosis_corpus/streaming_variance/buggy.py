import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_var_kernel(X, Out, stride, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += x
        _var += x * x
    mean = tl.sum(_mean, axis=0) / N
    var = tl.sum(_var, axis=0) / N - mean * mean
    tl.store(Out + row, var)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_var_kernel[(x.shape[0],)](x, out, x.stride(0), x.shape[1], BLOCK_SIZE=1024)
        return out
