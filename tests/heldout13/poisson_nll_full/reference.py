"""Per-sample Poisson negative log-likelihood with the Stirling term:
F.poisson_nll_loss(x, target, log_input=True, full=True, reduction="none").sum(dim=1).

x (BATCH, CLASSES) fp32 are log-rates (N(0.5, 1)), target (BATCH, CLASSES) fp32 Poisson counts
drawn at rate exp(x) (many 0s and 1s). Elementwise exp(x) - target * x, plus the Stirling
approximation target log(target) - target + 0.5 log(2 pi target) only where target > 1 (torch
masks it to 0 for target <= 1, where it would be NaN or a poor approximation). Output (BATCH,)
fp32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 250
CLASSES = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        loss = F.poisson_nll_loss(x, target, log_input=True, full=True, reduction="none")
        return loss.sum(dim=1)


def get_inputs():
    x = 0.5 + torch.randn(BATCH, CLASSES)
    target = torch.poisson(torch.exp(x))
    return [x, target]


def get_init_inputs():
    return []
