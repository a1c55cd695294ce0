"""Triton paged-KV gather: out[b, t, h, :] = cache[block_table[b, t // P], t % P, h, :] * head_scale[h].

cache is a contiguous (NUM_PAGES, P, H, D) bf16 tensor, block_table (B, PAGES_PER_SEQ) int32,
head_scale (H,) fp32; out is (B, seq_len, H, D) bf16, seq_len given to the constructor. One
program per (sequence, block of BLOCK_T tokens) copies the H * D values of each token (one row
of BLOCK_HD lanes per token): the page comes from the block table, the slot is t % P, the head
of a lane is c // D. The scale is applied in fp32 and the product rounded to bf16 once.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def paged_gather_kernel(
    cache_ptr,
    table_ptr,
    scale_ptr,
    out_ptr,
    seq_len,
    pages_per_seq,
    P,
    D,
    HD,
    BLOCK_T: tl.constexpr,
    BLOCK_HD: tl.constexpr,
):
    b = tl.program_id(0)
    pid_t = tl.program_id(1)
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    c = tl.arange(0, BLOCK_HD)
    t_mask = t < seq_len
    c_mask = c < HD
    mask = t_mask[:, None] & c_mask[None, :]
    page = tl.load(table_ptr + b * pages_per_seq + t // P, mask=t_mask, other=0)
    slot = t % P
    src = (page[:, None] * P + slot[:, None]) * HD + c[None, :]
    vals = tl.load(cache_ptr + src, mask=mask, other=0.0).to(tl.float32)
    scale = tl.load(scale_ptr + c % D, mask=c_mask, other=0.0)
    y = vals * scale[None, :]
    dst = (b * seq_len + t[:, None]) * HD + c[None, :]
    tl.store(out_ptr + dst, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, seq_len: int):
        super().__init__()
        self.seq_len = seq_len

    def forward(self, cache: torch.Tensor, block_table: torch.Tensor, head_scale: torch.Tensor) -> torch.Tensor:
        cache = cache.contiguous()
        block_table = block_table.contiguous()
        head_scale = head_scale.contiguous()
        _, P, H, D = cache.shape
        seq_len = self.seq_len
        B, pages_per_seq = block_table.shape
        out = torch.empty((B, seq_len, H, D), device=cache.device, dtype=cache.dtype)
        BLOCK_T = 8
        BLOCK_HD = triton.next_power_of_2(H * D)
        grid = (B, triton.cdiv(seq_len, BLOCK_T))
        paged_gather_kernel[grid](
            cache,
            block_table,
            head_scale,
            out,
            seq_len,
            pages_per_seq,
            P,
            D,
            H * D,
            BLOCK_T=BLOCK_T,
            BLOCK_HD=BLOCK_HD,
        )
        return out
