"""Complex multiply on interleaved (real, imag) pairs, with the second operand broadcast over batch.

x is (4, 3000, 2) fp32 (4 signals of 3000 complex samples, last dim = real, imag), y is
(3000, 2) fp32 (one complex filter response, shared by every signal). out[b, k] = x[b, k] * y[k]
as complex numbers, returned in the same interleaved (4, 3000, 2) layout, fp32.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        xc = torch.view_as_complex(x.contiguous())
        yc = torch.view_as_complex(y.contiguous())
        return torch.view_as_real(xc * yc.unsqueeze(0))


def get_inputs():
    x = torch.randn(4, 3000, 2)
    y = torch.randn(3000, 2)
    return [x, y]


def get_init_inputs():
    return []
