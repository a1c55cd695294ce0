"""SwiGLU gate: silu(gate) * up on fp16 (48, 1100) tensors (the MLP activation of Llama-style models)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, COLS = 48, 1100


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        wide = torch.promote_types(gate.dtype, torch.float32)
        return (F.silu(gate.to(wide)) * up.to(wide)).to(gate.dtype)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=torch.float16), torch.randn(ROWS, COLS, dtype=torch.float16)]


def get_init_inputs():
    return []
