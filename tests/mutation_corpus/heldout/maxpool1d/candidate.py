"""MaxPool1d: one program per (batch * channel, 64-output block), the window unrolled with padding read as -inf."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def maxpool1d_kernel(x_ptr, y_ptr, length, out_length, stride_xr, stride_yr,
                     KERNEL: tl.constexpr, STRIDE: tl.constexpr, PADDING: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs_o = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    out_mask = offs_o < out_length
    start = offs_o * STRIDE - PADDING
    best = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for k in tl.static_range(KERNEL):
        pos = start + k
        valid = out_mask & (pos >= 0) & (pos < length)
        v = tl.load(x_ptr + r * stride_xr + pos, mask=valid, other=float("-inf"))
        best = tl.maximum(best, v)
    tl.store(y_ptr + r * stride_yr + offs_o, best, mask=out_mask)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, length = x.shape
        out_length = (length + 2 * self.padding - self.kernel_size) // self.stride + 1
        x2 = x.contiguous().view(n * c, length)
        y = torch.empty((n * c, out_length), dtype=x.dtype, device=x.device)
        BLOCK = 64
        maxpool1d_kernel[(n * c, triton.cdiv(out_length, BLOCK))](
            x2, y, length, out_length, x2.stride(0), y.stride(0),
            KERNEL=self.kernel_size, STRIDE=self.stride, PADDING=self.padding, BLOCK=BLOCK,
        )
        return y.view(n, c, out_length)
