import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_kernel(x_ptr, b_ptr, out_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    col = offs % N
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + col, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + b, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        total = x.numel()
        bias_kernel[(triton.cdiv(total, 512),)](x, b, out, total, x.shape[-1], BLOCK=512)
        return out
