"""1-D max pooling: fp32 (4, 12, 301) input, kernel 3, stride 2, padding 1 (output length 151)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, CHANNELS, LENGTH = 4, 12, 301
KERNEL, STRIDE, PADDING = 3, 2, 1


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool1d(x, self.kernel_size, self.stride, self.padding)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, LENGTH)]


def get_init_inputs():
    return [KERNEL, STRIDE, PADDING]
