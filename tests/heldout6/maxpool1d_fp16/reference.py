"""1-D max pooling over the last dimension, as torch.nn.functional.max_pool1d.

x is (6, 20, 333) fp16; kernel 5, stride 2, padding 2 (padding never wins the max), so the output
is (6, 20, 167) fp16. A NaN inside a window makes that output NaN.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool1d(x, kernel_size=5, stride=2, padding=2)


def get_inputs():
    x = torch.randn(6, 20, 333, dtype=torch.float16)
    return [x]


def get_init_inputs():
    return []
