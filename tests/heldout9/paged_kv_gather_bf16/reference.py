"""Gather a paged KV cache into contiguous per-sequence tensors, with a per-head scale, in bfloat16.

cache is (NUM_PAGES, PAGE_SIZE, HEADS, HEAD_DIM) bf16 pages; block_table is (BATCH, PAGES_PER_SEQ)
int32, the page holding tokens [p * PAGE_SIZE, (p + 1) * PAGE_SIZE) of sequence b; head_scale is
(HEADS,) fp32. Every sequence has SEQ_LEN tokens (70: four full pages of 16 and 6 tokens of a
fifth). out[b, t, h, :] = cache[block_table[b, t // PAGE_SIZE], t % PAGE_SIZE, h, :] * head_scale[h],
a (BATCH, SEQ_LEN, HEADS, HEAD_DIM) bf16 tensor (the product in fp32, rounded once).
"""

import torch
import torch.nn as nn

PAGE_SIZE = 16
HEADS = 2
HEAD_DIM = 40
BATCH = 3
SEQ_LEN = 70
PAGES_PER_SEQ = (SEQ_LEN + PAGE_SIZE - 1) // PAGE_SIZE
NUM_PAGES = BATCH * PAGES_PER_SEQ + 9


class Model(nn.Module):
    def __init__(self, seq_len: int):
        super().__init__()
        self.seq_len = seq_len

    def forward(self, cache: torch.Tensor, block_table: torch.Tensor, head_scale: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(cache.dtype, torch.float32)
        page_size = cache.shape[1]
        t = torch.arange(self.seq_len, device=cache.device)
        pages = block_table[:, t // page_size].long()
        slots = (t % page_size)[None, :].expand_as(pages)
        gathered = cache[pages, slots].to(ct)
        return (gathered * head_scale.to(ct)[:, None]).to(cache.dtype)


def get_inputs():
    cache = torch.randn(NUM_PAGES, PAGE_SIZE, HEADS, HEAD_DIM, dtype=torch.bfloat16)
    block_table = torch.randperm(NUM_PAGES)[: BATCH * PAGES_PER_SEQ].reshape(BATCH, PAGES_PER_SEQ).to(torch.int32)
    head_scale = 0.5 + torch.rand(HEADS)
    return [cache, block_table, head_scale]


def get_init_inputs():
    return [SEQ_LEN]
