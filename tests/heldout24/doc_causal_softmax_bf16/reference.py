"""Attention probabilities of packed sequences (several documents concatenated into one row, as in
variable-length pretraining): scores (H, T, T) bf16, doc_ids (T,) int64 non-decreasing (the
document of each token); query i attends to key j when doc[j] == doc[i] and j <= i (causal
inside its own document). out = softmax over the allowed keys of scale * scores, 0 elsewhere,
fp32 math, out (H, T, T) bf16; scale a constructor argument.
"""

import torch
import torch.nn as nn

HEADS = 3
TOKENS = 100


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, scores, doc_ids):
        T = scores.shape[-1]
        ft = torch.promote_types(scores.dtype, torch.float32)
        same = doc_ids[:, None] == doc_ids[None, :]
        causal = torch.ones(T, T, dtype=torch.bool, device=scores.device).tril()
        s = (scores.to(ft) * self.scale).masked_fill(~(same & causal), float("-inf"))
        return torch.softmax(s, dim=-1).to(scores.dtype)


def get_inputs():
    # the scores live in a buffer whose rows are padded to a multiple of 64 (row stride > T)
    padded = (TOKENS + 63) // 64 * 64
    scores = 4.0 * torch.randn(HEADS, TOKENS, padded)
    scores[1] *= 100.0  # large logits (up to ~200 after scaling): exp overflows without the max
    scores[2, :, : TOKENS // 2] = 0.0  # ties: uniform attention over the first documents
    # document lengths: 1, 1, 2, then a long one, then random lengths to the end
    lengths = [1, 1, 2, TOKENS // 3]
    while sum(lengths) < TOKENS:
        lengths.append(int(torch.randint(1, 12, ()).item()))
    doc = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))[:TOKENS]
    return [scores.to(torch.bfloat16)[:, :, :TOKENS], doc]


def get_init_inputs():
    return [0.125]
