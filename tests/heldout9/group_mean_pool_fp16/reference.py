"""Mean pooling over groups of consecutive tokens, float16 in, float32 out.

x is (BATCH, TOKENS, DIM) fp16. Tokens are split into groups of GROUP consecutive tokens; the
last group is partial (TOKENS = 300, GROUP = 64: four groups of 64 and one of 44).
out[b, g, d] = mean of x[b, g * GROUP : (g + 1) * GROUP, d] over the tokens the group has,
a (BATCH, 5, DIM) fp32 tensor.
"""

import torch
import torch.nn as nn

BATCH = 4
TOKENS = 300
DIM = 48
GROUP = 64


class Model(nn.Module):
    def __init__(self, group: int):
        super().__init__()
        self.group = group

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        t_len = x.shape[1]
        pooled = [x[:, g : g + self.group].to(ct).mean(dim=1) for g in range(0, t_len, self.group)]
        return torch.stack(pooled, dim=1)


def get_inputs():
    x = torch.randn(BATCH, TOKENS, DIM, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return [GROUP]
