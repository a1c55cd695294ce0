"""RoBERTa position ids from input ids (HF `create_position_ids_from_input_ids`).

ids (BATCH, SEQ) int64 with padding id PAD = 1: even rows are right-padded, odd rows left-padded
(random lengths 1 .. SEQ), and ~2% pad ids are scattered inside the sequences. Non-pad tokens get
PAD + PAST + (number of non-pad tokens up to and including them), pad tokens get PAD
(PAST = 3: past key/value length). int64 out, compared exactly.
"""

import torch
import torch.nn as nn

BATCH = 6
SEQ = 300
PAD = 1
PAST = 3


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        mask = ids.ne(PAD).int()
        incremental = (torch.cumsum(mask, dim=1).type_as(mask) + PAST) * mask
        return incremental.long() + PAD


def get_inputs():
    ids = torch.randint(2, 50265, (BATCH, SEQ))
    lengths = torch.randint(1, SEQ + 1, (BATCH,))
    lengths[0] = SEQ
    t = torch.arange(SEQ)[None, :]
    right = (torch.arange(BATCH) % 2 == 0)[:, None]
    is_pad = torch.where(right, t >= lengths[:, None], t < SEQ - lengths[:, None])
    is_pad |= torch.rand(BATCH, SEQ) < 0.02
    return [torch.where(is_pad, torch.full_like(ids, PAD), ids)]


def get_init_inputs():
    return []
