"""Small tasks and candidates written for the tests (real Triton kernels, KernelBench format)."""

VECTOR_ADD_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.randn(1000), torch.randn(1000)]


def get_init_inputs():
    return []
"""

KERNEL = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def triton_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    return out
"""

VECTOR_ADD_CANDIDATE = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def forward(self, x, y):
        return triton_add(x, y)
"""
)


def candidate_with(forward_body: str, prelude: str = "") -> str:
    """A candidate whose forward runs `forward_body` (indented 8 spaces, may use x, y, triton_add)."""
    body = "\n".join("        " + line if line.strip() else line for line in forward_body.strip("\n").splitlines())
    return KERNEL + "\n" + prelude + "\n\nclass ModelNew(nn.Module):\n    def forward(self, x, y):\n" + body + "\n"
