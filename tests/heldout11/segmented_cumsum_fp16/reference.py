"""Segmented (jagged) cumulative sum over rows: the running sum restarts at every segment, fp16 in, fp32 out.

x is (TOTAL, FEATURES) fp16, the rows of NUM_SEGMENTS sequences stored one after the other;
offsets (NUM_SEGMENTS + 1,) int64 gives segment s the rows offsets[s] .. offsets[s + 1] - 1
(lengths 0..MAX_LEN, every 7th segment empty). out[r] = sum of x[offsets[s] .. r] for the segment s
holding row r, in fp32 (fp64 for fp64 inputs).
"""

import torch
import torch.nn as nn

NUM_SEGMENTS = 60
FEATURES = 24
MAX_LEN = 90


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        acc = torch.promote_types(x.dtype, torch.float32)
        out = torch.empty(x.shape, dtype=acc, device=x.device)
        bounds = offsets.tolist()
        for start, end in zip(bounds[:-1], bounds[1:], strict=True):
            out[start:end] = torch.cumsum(x[start:end].to(acc), dim=0)
        return out


def get_inputs():
    lengths = torch.randint(0, MAX_LEN + 1, (NUM_SEGMENTS,))
    lengths[::7] = 0
    offsets = torch.zeros(NUM_SEGMENTS + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, dim=0)
    x = torch.randn(int(offsets[-1]), FEATURES, dtype=torch.float16)
    return [x, offsets]


def get_init_inputs():
    return []
