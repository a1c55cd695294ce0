import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def polar_kernel(ang_ptr, r_ptr, out_ptr, N, s_p, s_a, FLAT: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < N
    t = tl.load(ang_ptr + i * s_p, mask=mask, other=0.0)
    p = tl.load(ang_ptr + i * s_p + s_a, mask=mask, other=0.0)
    r = tl.load(r_ptr + i, mask=mask, other=0.0)
    ct = tl.cos(t)
    x = r * ct * tl.cos(p)
    y = r * ct * tl.sin(p)
    z = r * (1.0 - FLAT) * tl.sin(t)
    tl.store(out_ptr + i * 3, x, mask=mask)
    tl.store(out_ptr + i * 3 + 1, y, mask=mask)
    tl.store(out_ptr + i * 3 + 2, z, mask=mask)


class ModelNew(nn.Module):
    def forward(self, ang: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        n = ang.shape[0]
        out = torch.empty(n, 3, dtype=ang.dtype, device=ang.device)
        polar_kernel[(triton.cdiv(n, 128),)](ang, r, out, n, ang.stride(0), ang.stride(1), FLAT=0.0067, BLOCK=128)
        return out
