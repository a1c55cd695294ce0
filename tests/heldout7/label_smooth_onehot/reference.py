"""Label-smoothed one-hot targets from integer class labels.

labels is (333,) int64 in [0, 101); out is (333, 101) fp32:
out[r, c] = (1 - eps) [c == labels[r]] + eps / C, with eps = 0.1 and C = 101 classes
(every row sums to 1).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 333
NUM_CLASSES = 101
EPS = 0.1


class Model(nn.Module):
    def __init__(self, num_classes: int, eps: float):
        super().__init__()
        self.num_classes = num_classes
        self.eps = eps

    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        onehot = F.one_hot(labels, self.num_classes).to(torch.float32)
        return onehot * (1.0 - self.eps) + self.eps / self.num_classes


def get_inputs():
    return [torch.randint(0, NUM_CLASSES, (BATCH,), dtype=torch.int64)]


def get_init_inputs():
    return [NUM_CLASSES, EPS]
