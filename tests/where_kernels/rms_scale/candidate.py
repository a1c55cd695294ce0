import torch
import torch.nn as nn
import triton
import triton.language as tl

EPS = 1e-6


@triton.jit
def rms_scale_kernel(x_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / N
    scale = 1.0 / tl.sqrt(ms + eps)
    tl.store(out_ptr + row * N + cols, x * scale, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        rms_scale_kernel[(rows,)](x, out, cols, EPS, BLOCK=triton.next_power_of_2(cols))
        return out
