import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_var_two_pass(X, Out, stride, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    base = X + row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(base + cols, mask=cols < N, other=0.0)
    mean = tl.sum(acc, axis=0) / N
    sq = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        d = tl.where(cols < N, tl.load(base + cols, mask=cols < N, other=0.0) - mean, 0.0)
        sq += d * d
    tl.store(Out + row, tl.sum(sq, axis=0) / N)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_var_two_pass[(x.shape[0],)](x, out, x.stride(0), x.shape[1], BLOCK_SIZE=1024)
        return out
