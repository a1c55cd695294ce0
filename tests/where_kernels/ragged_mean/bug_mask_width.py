import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ragged_mean_kernel(x_ptr, len_ptr, out_ptr, WIDTH, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    length = tl.load(len_ptr + row)
    cols = tl.arange(0, BLOCK)
    keep = cols < WIDTH
    x = tl.load(x_ptr + row * WIDTH + cols, mask=keep, other=0.0)
    total = tl.sum(x, axis=0)
    tl.store(out_ptr + row, total / length.to(tl.float32))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        rows, width = x.shape
        ragged_mean_kernel[(rows,)](x, lengths, out, width, BLOCK=triton.next_power_of_2(width))
        return out
