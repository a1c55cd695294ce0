import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_scale_rows_kernel(x_ptr, ls_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    scale = tl.load(ls_ptr + row)
    tl.store(out_ptr + row * N + cols, x * scale, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, log_scale: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        log_scale_rows_kernel[(rows,)](x, log_scale, out, cols, BLOCK=256)
        return out
