"""Length-aware sequence reversal (tf.reverse_sequence; the backward direction of a bidirectional
RNN over a right-padded batch): x (B, T, D) bf16 (a batch-first view of a time-major buffer),
lengths (B,) int64 in [0, T]; for t < len[b], out[b, t] = x[b, len[b] - 1 - t], and the padding
(t >= len[b]) is copied unchanged; out contiguous. An exact copy.
"""

import torch
import torch.nn as nn

BATCH = 12
STEPS = 37
DIM = 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, lengths):
        T = x.shape[1]
        t = torch.arange(T, device=x.device).view(1, T)
        ln = lengths.view(-1, 1)
        src = torch.where(t < ln, ln - 1 - t, t)
        return torch.gather(x, 1, src.unsqueeze(-1).expand_as(x))


def get_inputs():
    # x is the batch-first view of a time-major (T, B, D) buffer (an RNN's output)
    x = torch.randn(STEPS, BATCH, DIM).transpose(0, 1)
    x[:, :, 0] = torch.arange(STEPS, dtype=torch.float32)  # channel 0: the time step (exact in bf16)
    x[:, :, -1] = -torch.arange(BATCH, dtype=torch.float32).view(-1, 1)  # last channel: the row
    x[5] *= 1.0e5  # a row of outlier activations (beyond fp16's range, fine in bf16)
    x[6] *= 1.0e-6  # a row of tiny values (subnormal in fp16)
    lengths = torch.randint(1, STEPS + 1, (BATCH,))
    lengths[0] = STEPS  # full row: a plain reversal
    lengths[1] = 0  # empty: all padding
    lengths[2] = 1  # one step: nothing moves
    lengths[3] = STEPS - 1  # one padding step
    lengths[4] = 2
    return [x.to(torch.bfloat16), lengths]


def get_init_inputs():
    return []
