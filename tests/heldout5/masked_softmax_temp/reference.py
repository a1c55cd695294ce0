"""Softmax with a temperature and a boolean keep-mask over the last dim; fully masked rows give zeros.

x is (162, 300) fp32 logits and mask is a (162, 300) bool keep-mask whose per-row keep rate is
drawn from [-0.2, 1), so about one row in six is fully masked. The output is (162, 300) fp32:
softmax(x / T) over the kept positions, 0 at masked positions, and all zeros in fully masked
rows. T = 0.7.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, temperature: float = 0.7):
        super().__init__()
        self.temperature = temperature

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        s = (x / self.temperature).masked_fill(~mask, float("-inf"))
        p = torch.softmax(s, dim=-1)
        return p.masked_fill(~mask, 0.0)


def get_inputs():
    x = torch.randn(162, 300)
    mask = torch.rand(162, 300) < (torch.rand(162, 1) * 1.2 - 0.2)
    return [x, mask]


def get_init_inputs():
    return [0.7]
