"""GroupNorm: one program per (sample, group); the group's C/G * H*W elements are contiguous."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def group_norm_kernel(X, Y, W, B, group_size, hw, channels_per_group, num_groups, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    group = pid % num_groups
    base = pid * group_size
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, group_size, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        s += tl.load(X + base + idx, mask=idx < group_size, other=0.0)
    mean = tl.sum(s, axis=0) / group_size
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, group_size, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        m = idx < group_size
        x = tl.load(X + base + idx, mask=m, other=0.0)
        d = tl.where(m, x - mean, 0.0)
        sq += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / group_size + eps)
    for off in range(0, group_size, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        m = idx < group_size
        x = tl.load(X + base + idx, mask=m, other=0.0)
        ch = group * channels_per_group + idx // hw
        w = tl.load(W + ch, mask=m, other=1.0)
        b = tl.load(B + ch, mask=m, other=0.0)
        tl.store(Y + base + idx, (x - mean) * rstd * w + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self, groups: int, channels: int, eps: float):
        super().__init__()
        self.groups = groups
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(channels))
        self.bias = nn.Parameter(0.1 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, c = x.shape[0], x.shape[1]
        hw = x[0, 0].numel()
        cpg = c // self.groups
        y = torch.empty_like(x)
        group_norm_kernel[(n * self.groups,)](
            x, y, self.weight, self.bias, cpg * hw, hw, cpg, self.groups, self.eps, BLOCK=128,
        )
        return y
