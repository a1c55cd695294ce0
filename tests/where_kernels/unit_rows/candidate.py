import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def unit_rows_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * C + cols, mask=mask, other=0.0)
    length = tl.sqrt(tl.sum(x * x, axis=0))
    inv = 1.0 / tl.maximum(length, 1e-12)
    tl.store(out_ptr + row * C + cols, x * inv, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        unit_rows_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
