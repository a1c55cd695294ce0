"""2-D max pooling with indices: F.max_pool2d(kernel 3, stride 2, padding 1, return_indices=True).

x is (BATCH, CHANNELS, HEIGHT, WIDTH) fp16. Returns the pooled values (fp16, exact) and, for each
output, the flat index ih * WIDTH + iw of the chosen input pixel within its plane (int64). The
window is scanned in (kh, kw) order and a value replaces the running maximum when it is greater
or NaN, so the first maximum wins on ties and a NaN in the window propagates. Padding positions
never take part.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 5
HEIGHT = 29
WIDTH = 35
KERNEL = 3
STRIDE = 2
PADDING = 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        values, indices = F.max_pool2d(x, KERNEL, STRIDE, PADDING, return_indices=True)
        return values, indices


def get_inputs():
    x = torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH).to(torch.float16)
    return [x]


def get_init_inputs():
    return []
