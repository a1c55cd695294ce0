"""Softmax cross-entropy loss, mean over rows (the LM-head loss).

fp32 logits of 129 rows x 1000 classes (1000 is not a multiple of the 256-wide column block),
int64 targets. Output: a 0-d fp32 tensor.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, CLASSES = 129, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor):
        return F.cross_entropy(logits, targets)


def get_inputs():
    logits = 2.0 * torch.randn(ROWS, CLASSES)
    targets = torch.randint(0, CLASSES, (ROWS,), dtype=torch.int64)
    return [logits, targets]


def get_init_inputs():
    return []
