import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def window_sums_kernel(x_ptr, out_ptr, n, n_out, WINDOW: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = pos < n_out
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for j in tl.static_range(WINDOW):
        total += tl.load(x_ptr + row * n + pos + j, mask=mask, other=0.0)
    tl.store(out_ptr + row * n + pos, total, mask=mask)


class ModelNew(nn.Module):
    window = 6

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, n = x.shape
        n_out = n - self.window + 1
        out = torch.empty((rows, n_out), device=x.device, dtype=x.dtype)
        window_sums_kernel[(rows, triton.cdiv(n_out, 256))](x, out, n, n_out, WINDOW=self.window, BLOCK=256)
        return out
