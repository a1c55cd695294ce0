"""Scaled dot-product attention with a key padding mask (per-sample valid lengths).

q, k, v are (BATCH, HEADS, SEQ, HEAD_DIM) fp16; lengths (BATCH,) int64 gives each sample's number
of valid keys (keys j >= lengths[b] are padding: -inf before the softmax, for every head and
query); every sample has at least one valid key. scores = q k^T / sqrt(HEAD_DIM), softmax over the
keys, times v; computed in fp32 (fp64 when the inputs are), returned in fp16.
"""

import torch
import torch.nn as nn

BATCH = 3
HEADS = 2
SEQ = 45
HEAD_DIM = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(q.dtype, torch.float32)
        S = k.shape[2]
        scores = (q.to(ct) @ k.to(ct).transpose(-1, -2)) * q.shape[-1] ** -0.5
        valid = torch.arange(S, device=q.device)[None, :] < lengths[:, None]
        scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return (p @ v.to(ct)).to(q.dtype)


def get_inputs():
    q = torch.randn(BATCH, HEADS, SEQ, HEAD_DIM).to(torch.float16)
    k = torch.randn(BATCH, HEADS, SEQ, HEAD_DIM).to(torch.float16)
    v = torch.randn(BATCH, HEADS, SEQ, HEAD_DIM).to(torch.float16)
    lengths = torch.tensor([SEQ, 2 * SEQ // 3, SEQ // 3 + 2], dtype=torch.int64)
    return [q, k, v, lengths]


def get_init_inputs():
    return []
