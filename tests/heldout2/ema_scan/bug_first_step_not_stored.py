"""EMA scan: each program owns a block of channels and walks the time axis with an fp32 state."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ema_kernel(x_ptr, y_ptr, n_steps, n_channels, stride_t, stride_c, decay, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = cols < n_channels
    state = tl.load(x_ptr + cols * stride_c, mask=mask, other=0.0).to(tl.float32)
    for t in range(1, n_steps):
        x = tl.load(x_ptr + t * stride_t + cols * stride_c, mask=mask, other=0.0).to(tl.float32)
        state = decay * state + (1.0 - decay) * x
        tl.store(y_ptr + t * stride_t + cols * stride_c, state.to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, decay: float):
        super().__init__()
        self.decay = decay

    def forward(self, x: torch.Tensor):
        n_steps, n_channels = x.shape
        y = torch.empty_like(x)
        grid = lambda meta: (triton.cdiv(n_channels, meta["BLOCK_C"]),)  # noqa: E731
        ema_kernel[grid](x, y, n_steps, n_channels, x.stride(0), x.stride(1), self.decay, BLOCK_C=64)
        return y
