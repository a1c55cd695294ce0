"""Row-wise cosine similarity between x and y, as torch.nn.functional.cosine_similarity(dim=1).

x and y are (300, 1000) fp16 with unit-variance, correlated features; the output is (300,) in at
least fp32 (the reference promotes to fp32, float64 for the golden), with the product of the two
norms clamped below by eps = 1e-8.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        dt = torch.promote_types(x.dtype, torch.float32)
        return F.cosine_similarity(x.to(dt), y.to(dt), dim=1, eps=1e-8)


def get_inputs():
    x = torch.randn(300, 1000, dtype=torch.float16)
    y = (0.5 * x.float() + torch.randn(300, 1000)).to(torch.float16)
    return [x, y]


def get_init_inputs():
    return []
