"""Triton instance normalisation (no affine, eps given) over each (n, c) plane of an fp16 tensor.

One program per plane makes three passes over it in blocks of BLOCK (the last block masked):
the fp32 sum of x - x[0] for the mean, the fp32 sum of squared deviations for the biased variance,
then the normalised values stored as fp16. Everything is computed relative to the plane's first
value x[0], so a large common offset costs no precision.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def instance_norm_kernel(x_ptr, out_ptr, HW, eps, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    base = plane * HW
    offs = tl.arange(0, BLOCK)
    shift = tl.load(x_ptr + base).to(tl.float32)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, HW, BLOCK):
        m = start + offs < HW
        v = tl.load(x_ptr + base + start + offs, mask=m, other=0.0).to(tl.float32)
        acc += tl.where(m, v - shift, 0.0)
    mean_rel = tl.sum(acc, axis=0) / HW
    acc2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, HW, BLOCK):
        m = start + offs < HW
        v = tl.load(x_ptr + base + start + offs, mask=m, other=0.0).to(tl.float32)
        d = tl.where(m, (v - shift) - mean_rel, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / HW
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, HW, BLOCK):
        m = start + offs < HW
        v = tl.load(x_ptr + base + start + offs, mask=m, other=0.0).to(tl.float32)
        tl.store(out_ptr + base + start + offs, (((v - shift) - mean_rel) * rstd).to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self, eps: float):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, H, W = x.shape
        out = torch.empty_like(x)
        instance_norm_kernel[(N * C,)](x, out, H * W, self.eps, BLOCK=256)
        return out
