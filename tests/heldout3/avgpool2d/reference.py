"""2-D average pooling, kernel 3, stride 2, padding 1 (count_include_pad=True) over (N, C, H, W).

x is (2, 5, 37, 29) fp32; the output is (2, 5, 19, 15). Padding taps count as zeros in the
divisor (PyTorch's default), so border outputs average fewer real values over 9.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(2, 5, 37, 29, dtype=torch.float32)]


def get_init_inputs():
    return [3, 2, 1]
