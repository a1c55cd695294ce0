"""Mean binary cross-entropy with logits, as torch.nn.functional.binary_cross_entropy_with_logits.

logits are (400, 333) fp32 (133,200 elements) ~ N(0, 5^2) and targets are soft labels in [0, 1)
fp32; the output is the 0-d fp32 mean of max(x, 0) - x t + log(1 + exp(-|x|)).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(logits, targets, reduction="mean")


def get_inputs():
    return [torch.randn(400, 333) * 5.0, torch.rand(400, 333)]


def get_init_inputs():
    return []
