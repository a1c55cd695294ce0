import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def luma_kernel(rgb_ptr, out_ptr, N, s_p, s_c, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < N
    base = rgb_ptr + i * s_p
    r = tl.load(base, mask=mask, other=0.0)
    g = tl.load(base + s_c, mask=mask, other=0.0)
    b = tl.load(base + 2 * s_c, mask=mask, other=0.0)
    tl.store(out_ptr + i, 0.299 * r + 0.587 * g + 0.114 * b, mask=mask)


class ModelNew(nn.Module):
    def forward(self, rgb: torch.Tensor) -> torch.Tensor:
        n = rgb.shape[0]
        out = torch.empty(n, dtype=rgb.dtype, device=rgb.device)
        luma_kernel[(triton.cdiv(n, 128),)](rgb, out, n, rgb.stride(0), rgb.stride(1), BLOCK=128)
        return out
