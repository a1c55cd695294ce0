import torch
import torch.nn as nn

ROWS = 30
COLS = 300
RATE = 0.01


class Model(nn.Module):
    """Each row weighted by a decay over its columns, x * exp(-RATE * col) (fp32)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights = torch.exp(-RATE * torch.arange(x.shape[1], dtype=x.dtype, device=x.device))
        return x * weights


def get_inputs():
    return [torch.rand(ROWS, COLS) + 0.5]


def get_init_inputs():
    return []
