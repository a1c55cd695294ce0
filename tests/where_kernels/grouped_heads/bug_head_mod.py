import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def grouped_heads_kernel(q_ptr, kv_ptr, out_ptr, Q_HEADS, KV_HEADS, KEYS, DIM: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    group = Q_HEADS // KV_HEADS
    kv_h = h % KV_HEADS
    keys = tl.arange(0, BLOCK_K)
    d = tl.arange(0, DIM)
    tile = tl.load(
        kv_ptr + ((b * KV_HEADS + kv_h) * KEYS + keys[:, None]) * DIM + d[None, :], mask=keys[:, None] < KEYS
    )
    sums = tl.sum(tile, axis=0)
    q = tl.load(q_ptr + (b * Q_HEADS + h) * DIM + d)
    tl.store(out_ptr + (b * Q_HEADS + h) * DIM + d, q * sums)


class ModelNew(nn.Module):
    def forward(self, q: torch.Tensor, kv: torch.Tensor) -> torch.Tensor:
        q, kv = q.contiguous(), kv.contiguous()
        out = torch.empty_like(q)
        batch, q_heads, dim = q.shape
        kv_heads, keys = kv.shape[1], kv.shape[2]
        grouped_heads_kernel[(batch, q_heads)](
            q, kv, out, q_heads, kv_heads, keys, DIM=dim, BLOCK_K=triton.next_power_of_2(keys)
        )
        return out
