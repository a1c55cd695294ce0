import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def norm_kernel(x_ptr, norm_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < N, other=0.0)
        acc += x * x
    norm = tl.sum(acc, axis=0)
    tl.store(norm_ptr, norm)


@triton.jit
def scale_kernel(x_ptr, norm_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    norm = tl.load(norm_ptr)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x / norm, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        norm = torch.empty(1, dtype=torch.float32, device=x.device)
        n = x.numel()
        norm_kernel[(1,)](x, norm, n, BLOCK=256)
        scale_kernel[(triton.cdiv(n, 256),)](x, norm, out, n, BLOCK=256)
        return out
