"""Row-wise argmin with ties broken toward the first index, as torch.argmin(x, dim=1).

x is (203, 777) int32 drawn from [1, 2000), so the minimum of a row is often tied; the output is
(203,) int64, the index of the first occurrence of the row minimum.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmin(x, dim=1)


def get_inputs():
    return [torch.randint(1, 2000, (203, 777), dtype=torch.int32)]


def get_init_inputs():
    return []
