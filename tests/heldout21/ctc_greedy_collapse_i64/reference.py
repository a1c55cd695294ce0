"""CTC greedy (best-path) decoding of per-frame argmax ids (speech recognition): merge runs of a repeated id,
then drop the blank (id 0); the kept ids are packed to the left, the rest of the row is -1.

ids (B, T) int64 in [0, VOCAB); outputs tokens (B, T) int64 and lengths (B,) int64 (the number kept).
"""

import torch
import torch.nn as nn

BATCH = 12
FRAMES = 400
VOCAB = 6


class Model(nn.Module):
    BLANK = 0

    def __init__(self):
        super().__init__()

    def forward(self, ids):
        B, T = ids.shape
        prev = torch.cat([torch.full_like(ids[:, :1], -1), ids[:, :-1]], dim=1)
        keep = (ids != prev) & (ids != self.BLANK)
        pos = torch.cumsum(keep.to(torch.int64), dim=1) - 1
        tokens = torch.full((B, T + 1), -1, dtype=ids.dtype, device=ids.device)
        tokens.scatter_(1, torch.where(keep, pos, T), torch.where(keep, ids, -1))
        return tokens[:, :T], keep.sum(dim=1)


def get_inputs():
    ids = torch.randint(1, VOCAB, (BATCH, FRAMES))
    ids[torch.rand(BATCH, FRAMES) < 0.35] = 0
    # runs: about half of the frames repeat the frame before them
    rep = torch.rand(BATCH, FRAMES) < 0.5
    for t in range(1, FRAMES):
        ids[:, t] = torch.where(rep[:, t], ids[:, t - 1], ids[:, t])
    # rows are consecutive chunks of one stream: a run may cross the cut (rows 3, 6, ... end with id 4 and
    # rows 4, 7, ... start with it), and each row is decoded on its own: the 4 starting a row is kept
    ids[3::3, -1] = 4
    ids[4::3, 0] = 4
    ids[0] = 0  # all blank: nothing kept
    ids[1] = 3  # one run: one token
    ids[2, 0::2] = 2  # 2, 0, 2, 0, ...: every 2 kept
    ids[2, 1::2] = 0
    return [ids]


def get_init_inputs():
    return []
