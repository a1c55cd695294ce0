"""Grouped-query attention, one decode step against a KV cache with per-sample lengths.

q is (BATCH, Q_HEADS, HEAD_DIM) fp16 (the new token's queries), k_cache and v_cache are
(BATCH, KV_HEADS, CACHE_LEN, HEAD_DIM) fp16, lengths (BATCH,) int64 says how many cache slots of
each sample are filled (the rest hold stale values and must be ignored). Query head h attends to
KV head h // (Q_HEADS // KV_HEADS). Output softmax(q k^T / sqrt(HEAD_DIM)) v, (BATCH, Q_HEADS,
HEAD_DIM) fp16. The math runs in at least fp32 (as fused attention kernels do), rounded to the
input dtype once at the end.
"""

import torch
import torch.nn as nn

BATCH = 3
Q_HEADS = 8
KV_HEADS = 2
CACHE_LEN = 200
HEAD_DIM = 64
LENGTHS = (173, 200, 61)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, lengths):
        work = torch.promote_types(q.dtype, torch.float32)
        out_dtype = q.dtype
        q, k_cache, v_cache = q.to(work), k_cache.to(work), v_cache.to(work)
        group = q.shape[1] // k_cache.shape[1]
        k = k_cache.repeat_interleave(group, dim=1)
        v = v_cache.repeat_interleave(group, dim=1)
        scores = torch.einsum("bhd,bhsd->bhs", q, k) * (q.shape[-1] ** -0.5)
        slots = torch.arange(k.shape[2], device=q.device)
        scores = scores.masked_fill(slots[None, None, :] >= lengths[:, None, None], float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return torch.einsum("bhs,bhsd->bhd", p, v).to(out_dtype)


def get_inputs():
    q = torch.randn(BATCH, Q_HEADS, HEAD_DIM, dtype=torch.float16)
    k_cache = torch.randn(BATCH, KV_HEADS, CACHE_LEN, HEAD_DIM, dtype=torch.float16)
    v_cache = torch.randn(BATCH, KV_HEADS, CACHE_LEN, HEAD_DIM, dtype=torch.float16)
    lengths = torch.tensor(LENGTHS, dtype=torch.int64)
    return [q, k_cache, v_cache, lengths]


def get_init_inputs():
    return []
