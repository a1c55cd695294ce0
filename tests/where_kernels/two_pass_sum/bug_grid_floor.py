import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def two_pass_sum_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
    partial = tl.load(out_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, partial + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = x.numel()
        two_pass_sum_kernel[(n // 128,)](x, y, out, n, BLOCK=128)
        return out
