"""Local response normalisation across channels (F.local_response_norm), fp16 in and out.

x is (BATCH, CHANNELS, HEIGHT, WIDTH) fp16, values ~N(0, 20^2). With SIZE = 5:
out[:, c] = x[:, c] / (K + ALPHA / SIZE * sum_{c' = c - 2}^{c + 2} x[:, c']^2) ** BETA, the channels
outside [0, CHANNELS) counting as 0 (the sum is always divided by SIZE, as torch's average pool
with zero padding does). Computed in (at least) fp32, rounded to fp16 once.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 13
HEIGHT = 17
WIDTH = 19
SIZE = 5
ALPHA = 1e-3
BETA = 0.75
K = 1.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        out = F.local_response_norm(x.to(ct), SIZE, alpha=ALPHA, beta=BETA, k=K)
        return out.to(x.dtype)


def get_inputs():
    x = (20.0 * torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)).to(torch.float16)
    return [x]


def get_init_inputs():
    return []
