"""Segment sum over CSR offsets (a jagged / ragged batch): out[s] = values[offsets[s]:offsets[s+1]].sum(0).

values is (T, 96) fp16, offsets is (51,) int64 with 50 segments of random lengths 0..80 (some
segments are empty: their sum is zero). The output is (50, 96) fp16.
"""

import torch
import torch.nn as nn

SEGS, D, MAX_LEN = 50, 96, 80


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        lengths = offsets[1:] - offsets[:-1]
        seg_ids = torch.repeat_interleave(torch.arange(lengths.numel(), device=values.device), lengths)
        out = torch.zeros((lengths.numel(), values.shape[1]), dtype=values.dtype, device=values.device)
        return out.index_add_(0, seg_ids, values)


def get_inputs():
    lengths = torch.randint(0, MAX_LEN + 1, (SEGS,))
    lengths[::7] = 0
    offsets = torch.zeros(SEGS + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    values = torch.randn(int(offsets[-1]), D).to(torch.float16)
    return [values, offsets]


def get_init_inputs():
    return []
