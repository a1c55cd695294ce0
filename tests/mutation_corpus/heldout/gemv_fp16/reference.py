"""Matrix-vector product y = W @ x: fp16 W (300, 1000), fp16 x (1000,), fp16 output."""

import torch
import torch.nn as nn

ROWS, COLS = 300, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, weight: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        if weight.dtype == torch.float16:
            return (weight.float() @ x.float()).to(torch.float16)
        return weight @ x


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16) / 10, torch.randn(COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
