"""Jagged to padded dense (FBGEMM `jagged_to_padded_dense` with one jagged dimension).

values (TOTAL, D) bf16 holds the rows of BATCH sequences back to back; offsets (BATCH + 1,) int64
(offsets[0] = 0, offsets[b + 1] - offsets[b] = length of sequence b). Returns (BATCH, MAX_LEN, D)
bf16: row t of sequence b is values[offsets[b] + t] for t < min(length, MAX_LEN), and the padding
value -1.0 elsewhere. Lengths are 0 .. 45 (sequence 3 always empty), so some are truncated at
MAX_LEN = 30. An exact copy.
"""

import torch
import torch.nn as nn

BATCH = 10
MAX_LEN = 30
DIM = 48
PAD_VALUE = -1.0


class Model(nn.Module):
    def __init__(self, max_len, pad_value):
        super().__init__()
        self.max_len = max_len
        self.pad_value = pad_value

    def forward(self, values, offsets):
        batch = offsets.numel() - 1
        out = torch.full(
            (batch, self.max_len, values.shape[1]), self.pad_value, dtype=values.dtype, device=values.device
        )
        for b in range(batch):
            start, end = int(offsets[b]), int(offsets[b + 1])
            n = min(end - start, self.max_len)
            out[b, :n] = values[start : start + n]
        return out


def get_inputs():
    lengths = torch.randint(0, 46, (BATCH,))
    lengths[3] = 0
    offsets = torch.zeros(BATCH + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, dim=0)
    values = torch.randn(int(offsets[-1]), DIM).to(torch.bfloat16)
    return [values, offsets]


def get_init_inputs():
    return [MAX_LEN, PAD_VALUE]
