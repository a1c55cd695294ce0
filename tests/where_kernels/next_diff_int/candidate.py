import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def next_diff_kernel(x_ptr, out_ptr, R, C, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_C)
    mask = cols < C
    nxt = (cols + 1) % C
    here = tl.load(x_ptr + row * C + cols, mask=mask, other=0)
    right = tl.load(x_ptr + row * C + nxt, mask=mask, other=0)
    tl.store(out_ptr + row * C + cols, right - here, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        next_diff_kernel[(rows,)](x, out, rows, cols, BLOCK_C=triton.next_power_of_2(cols))
        return out
