import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def triple_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32) * 3.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape, device=x.device, dtype=x.dtype)
        n = x.numel()
        triple_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
