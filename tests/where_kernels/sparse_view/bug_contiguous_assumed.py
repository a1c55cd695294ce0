import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def view_scale_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, so, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * C + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * so + cols, x * w + b, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        R, C = x.shape
        out = torch.empty(R, C, dtype=x.dtype, device=x.device)
        view_scale_kernel[(R,)](
            x,
            w,
            b,
            out,
            C,
            out.stride(0),
            BLOCK=triton.next_power_of_2(C),
        )
        return out
