"""Row scatter-add: out = zeros(num_rows, D).index_add_(0, index, src).

src is (2000, 50) fp32, index is (2000,) int64 in [0, 300) (duplicates everywhere, some target
rows never hit), num_rows is 300; the output is (300, 50) fp32.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, num_rows: int):
        super().__init__()
        self.num_rows = num_rows

    def forward(self, src: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        out = torch.zeros((self.num_rows, src.shape[1]), dtype=src.dtype, device=src.device)
        return out.index_add_(0, index, src)


def get_inputs():
    src = torch.randn(2000, 50, dtype=torch.float32)
    index = torch.randint(0, 300, (2000,), dtype=torch.int64)
    return [src, index]


def get_init_inputs():
    return [300]
