import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def quant_kernel(x_ptr, out_ptr, inv_scale, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    q = tl.minimum(tl.maximum(x * inv_scale, -128.0), 127.0)
    q = (q + 12582912.0) - 12582912.0  # round half to even in fp32, as torch.round
    tl.store(out_ptr + offsets, q.to(tl.int8), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        out = torch.empty(x.shape, dtype=torch.int8, device=x.device)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta['BLOCK_SIZE']),)
        quant_kernel[grid](x, out, 1.0 / self.scale, n, BLOCK_SIZE=1024)
        return out
