"""Per-row cross-entropy loss (reduction='none'): fp32 logits (120, 1000), int64 class targets."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, CLASSES = 120, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, target, reduction="none")


def get_inputs():
    return [3.0 * torch.randn(ROWS, CLASSES, dtype=torch.float32), torch.randint(0, CLASSES, (ROWS,))]


def get_init_inputs():
    return []
