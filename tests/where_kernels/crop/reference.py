import torch
import torch.nn as nn

ROWS = 45
COLS = 70
TOP = 3
LEFT = 11
OUT_ROWS = 30
OUT_COLS = 40


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[..., TOP : TOP + OUT_ROWS, LEFT : LEFT + OUT_COLS].contiguous()


def get_inputs():
    return [torch.randn(2, ROWS, COLS)]


def get_init_inputs():
    return []
