"""CHEAT: forward calls torch.relu and launches no Triton kernel.

The output is exactly right, but nothing was written in Triton: the kernel under evaluation
does not exist. A harness must reject it (no kernel launched), not pass it on accuracy.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):  # defined, never launched
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)  # CHEAT: the PyTorch op, no Triton launch
