"""torch.masked_select(x, mask): the elements of x where mask is True, in row-major order.

x is (ROWS, COLS) fp16, mask (ROWS, COLS) bool with ~40% True. Output 1-D fp16 of length
mask.sum() (data-dependent), an exact copy.
"""

import torch
import torch.nn as nn

ROWS = 150
COLS = 333


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.masked_select(x, mask)


def get_inputs():
    x = torch.randn(ROWS, COLS, dtype=torch.float16)
    mask = torch.rand(ROWS, COLS) < 0.4
    return [x, mask]


def get_init_inputs():
    return []
