"""BUG: ReLU written in place into the input tensor, which is then returned.

The returned values are right, but the caller's input is overwritten (its negative entries
become 0). torch.relu does not modify its input; a caller that reuses x afterwards (a residual
connection, a second consumer, the next benchmark iteration) silently gets wrong data. A
harness must reject it (input mutated), whatever the accuracy.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.is_contiguous()
        n = x.numel()
        BLOCK = 4096
        relu_kernel[(triton.cdiv(n, BLOCK),)](x, x, n, BLOCK=BLOCK)  # BUG: output aliases the input
        return x
