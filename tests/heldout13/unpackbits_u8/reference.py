"""numpy.unpackbits(x, axis=-1, count=NBITS, bitorder="big") on a uint8 tensor.

x is (ROWS, NBYTES) uint8 (any byte); bit k of a row is bit 7 - k % 8 (most significant first)
of byte k // 8. Only the first NBITS = 8 NBYTES - 3 bits of each row are kept (the last byte's
three low bits are padding). Output (ROWS, NBITS) uint8 of 0 / 1 (exact).
"""

import torch
import torch.nn as nn

ROWS = 300
NBYTES = 25
NBITS = 8 * NBYTES - 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shifts = torch.arange(7, -1, -1, device=x.device)
        bits = (x.unsqueeze(-1).to(torch.int64) >> shifts) & 1
        return bits.reshape(x.shape[0], -1)[:, :NBITS].to(torch.uint8)


def get_inputs():
    x = torch.randint(0, 256, (ROWS, NBYTES), dtype=torch.uint8)
    return [x]


def get_init_inputs():
    return []
