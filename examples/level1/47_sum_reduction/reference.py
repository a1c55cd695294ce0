"""Sum reduction over dim 1 with keepdim: torch.sum(x, dim=1, keepdim=True).

x is (16, 4096, 64) fp16, standard normal (torch.randn); the output is (16, 1, 64) fp16. Each
output element sums 4096 mean-zero values: the running partial sums wander to tens, while some
final sums are close to zero, so an accumulator that rounds to fp16 at every step loses the
small results entirely. (With KernelBench's torch.rand inputs, all positive, an fp16
accumulator errs by only ~1e-3 relative, about the float16 threshold itself, and passes or
fails depending on the tiling: randn makes the defect unmistakable.)
"""

import torch
import torch.nn as nn

BATCH = 16
DIM1 = 4096
DIM2 = 64


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


def get_inputs():
    x = torch.randn(BATCH, DIM1, DIM2, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return [1]
