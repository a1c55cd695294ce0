"""Triton top-1 router: per row of (T, E) fp32 logits, the argmax expert and its softmax probability.

One program per BLOCK_T rows; a row's E logits are padded to BLOCK_E lanes with -inf, so the
padding never wins the max and adds exp(-inf) = 0 to the denominator. The top probability is
exp(m - m) / sum_e exp(l_e - m) = 1 / sum_e exp(l_e - m), m the row max; the index is the first
position of the max (tl.argmax), stored as int64.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def top1_router_kernel(
    logits_ptr,
    weight_ptr,
    expert_ptr,
    T,
    E,
    BLOCK_T: tl.constexpr,
    BLOCK_E: tl.constexpr,
):
    pid = tl.program_id(0)
    t = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    e = tl.arange(0, BLOCK_E)
    t_mask = t < T
    mask = t_mask[:, None] & (e < E)[None, :]
    logits = tl.load(logits_ptr + t[:, None] * E + e[None, :], mask=mask, other=float("-inf"))
    m = tl.max(logits, axis=1)
    idx = tl.argmax(logits, axis=1)
    p = tl.exp(logits - m[:, None])
    denom = tl.sum(p, axis=1)
    tl.store(weight_ptr + t, 1.0 / denom, mask=t_mask)
    tl.store(expert_ptr + t, idx.to(tl.int64), mask=t_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor):
        logits = logits.contiguous()
        T, E = logits.shape
        weight = torch.empty(T, device=logits.device, dtype=logits.dtype)
        expert = torch.empty(T, device=logits.device, dtype=torch.int64)
        BLOCK_T = 16
        BLOCK_E = triton.next_power_of_2(E)
        grid = (triton.cdiv(T, BLOCK_T),)
        top1_router_kernel[grid](logits, weight, expert, T, E, BLOCK_T=BLOCK_T, BLOCK_E=BLOCK_E)
        return weight, expert
