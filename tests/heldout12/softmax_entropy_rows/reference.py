"""Entropy of the softmax of each row: H = -sum_j p_j log p_j, p = softmax(x) over the last dim.

x is (ROWS, COLS) fp32 logits, N(0, 3^2) around a per-row offset in [-100, 100] (logits with a
large bias: exp(x) alone overflows or underflows fp32 on many rows). Computed with log_softmax
in fp32 (fp64 when the input is); returns (ROWS,).
"""

import torch
import torch.nn as nn

ROWS = 300
COLS = 500


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        logp = torch.log_softmax(x.to(ct), dim=-1)
        return -(logp.exp() * logp).sum(dim=-1)


def get_inputs():
    offset = torch.rand(ROWS, 1) * 200.0 - 100.0
    x = offset + 3.0 * torch.randn(ROWS, COLS)
    return [x]


def get_init_inputs():
    return []
