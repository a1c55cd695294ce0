"""Gradient clipping by the global L2 norm (torch.nn.utils.clip_grad_norm_, max_norm=1, foreach-free).

g1 (ROWS1, COLS1) and g2 (ROWS2, COLS2) are fp16 gradients of magnitude ~10 (N(0, 10^2)), so the
global norm is ~2000 and the clip coefficient ~5e-4. total = || (||g1||, ||g2||) ||,
coef = min(MAX_NORM / (total + 1e-6), 1), outputs (g1 * coef, g2 * coef) in fp16, as
clip_grad_norm_ computes them (norms accumulated in fp32 by torch, the products rounded once).
"""

import torch
import torch.nn as nn

ROWS1 = 200
COLS1 = 150
ROWS2 = 150
COLS2 = 97
MAX_NORM = 1.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, g1: torch.Tensor, g2: torch.Tensor):
        norms = torch.stack([torch.linalg.vector_norm(g1), torch.linalg.vector_norm(g2)])
        total = torch.linalg.vector_norm(norms)
        coef = torch.clamp(MAX_NORM / (total + 1e-6), max=1.0)
        return g1 * coef, g2 * coef


def get_inputs():
    g1 = (10 * torch.randn(ROWS1, COLS1)).to(torch.float16)
    g2 = (10 * torch.randn(ROWS2, COLS2)).to(torch.float16)
    return [g1, g2]


def get_init_inputs():
    return []
