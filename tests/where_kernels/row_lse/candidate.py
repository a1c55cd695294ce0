import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_lse_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=float("-inf"))
    shift = tl.max(x, axis=0)
    total = tl.sum(tl.exp(x - shift), axis=0)
    tl.store(out_ptr + row, shift + tl.log(total))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, n = x.shape
        out = torch.empty(rows, device=x.device, dtype=x.dtype)
        row_lse_kernel[(rows,)](x, out, n, BLOCK=triton.next_power_of_2(n))
        return out
