import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gated_kernel(x_ptr, g_ptr, h_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    gate = tl.load(g_ptr + offs, mask=mask, other=0.0)
    h = tl.load(h_ptr + offs, mask=mask, other=0.0)
    s = 1.0 / (1.0 + tl.exp(-gate))
    out = s * h
    tl.store(out_ptr + offs, out, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, gate, h):
        out = torch.empty_like(x)
        n = x.numel()
        gated_kernel[(triton.cdiv(n, 256),)](x, gate, h, out, n, BLOCK=256)
        return out
