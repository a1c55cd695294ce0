"""torch.bucketize(x, boundaries) (right=False): int64 bucket indices.

boundaries is a sorted 1-D buffer of N_BOUNDARIES values on a grid of 1/8 (built in the
constructor from a fixed seed); x is (ROWS, COLS) fp32, also multiples of 1/8, so that many
values equal a boundary exactly. out[r, c] is the index i with boundaries[i - 1] < x <=
boundaries[i]: the number of boundaries strictly below x (0 below the first, N_BOUNDARIES above
the last).
"""

import torch
import torch.nn as nn

ROWS = 64
COLS = 333
N_BOUNDARIES = 37


def make_boundaries(n: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(1234)
    steps = torch.randint(1, 4, (n,), generator=g)
    return (torch.cumsum(steps, 0) - steps.sum() // 2).to(torch.float32) / 8.0


class Model(nn.Module):
    def __init__(self, n_boundaries: int = N_BOUNDARIES):
        super().__init__()
        self.register_buffer("boundaries", make_boundaries(n_boundaries))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.bucketize(x, self.boundaries.to(x.dtype))


def get_inputs():
    x = torch.randint(-44, 45, (ROWS, COLS)).to(torch.float32) / 8.0
    return [x]


def get_init_inputs():
    return [N_BOUNDARIES]
