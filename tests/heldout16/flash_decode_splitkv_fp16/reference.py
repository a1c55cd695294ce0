"""One decode step of attention over a padded KV cache (flash-decoding's split-KV problem).

q (BATCH, HEADS, HEAD_DIM) fp16, k / v caches (BATCH, HEADS, MAX_LEN, HEAD_DIM) fp16, lengths
(BATCH,) int64 in [1, MAX_LEN] (row 0 full, row 1 shorter than 32 keys): keys j >= lengths[b]
hold stale values and must be ignored. out = softmax(q k^T / sqrt(HEAD_DIM)) v, fp16.
"""

import torch
import torch.nn as nn

BATCH = 4
HEADS = 3
MAX_LEN = 200
HEAD_DIM = 80


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, lengths):
        ct = torch.promote_types(q.dtype, torch.float32)
        s = torch.einsum("bhd,bhld->bhl", q.to(ct), k.to(ct)) / HEAD_DIM**0.5
        valid = torch.arange(k.shape[2], device=q.device)[None, :] < lengths[:, None]
        s = s.masked_fill(~valid[:, None, :], float("-inf"))
        p = torch.softmax(s, dim=-1)
        return torch.einsum("bhl,bhld->bhd", p, v.to(ct)).to(q.dtype)


def get_inputs():
    q = (1.5 * torch.randn(BATCH, HEADS, HEAD_DIM)).half()
    k = torch.randn(BATCH, HEADS, MAX_LEN, HEAD_DIM).half()
    v = torch.randn(BATCH, HEADS, MAX_LEN, HEAD_DIM).half()
    lengths = torch.randint(1, MAX_LEN + 1, (BATCH,))
    lengths[0] = MAX_LEN
    lengths[1] = torch.randint(1, min(32, MAX_LEN + 1), ())
    return [q, k, v, lengths]


def get_init_inputs():
    return []
