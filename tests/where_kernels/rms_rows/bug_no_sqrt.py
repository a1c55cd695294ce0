import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * C + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / C + 1e-5
    y = x / ms
    tl.store(out_ptr + row * C + cols, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        rms_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=512)
        return out
