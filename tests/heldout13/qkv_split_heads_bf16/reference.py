"""Split a fused QKV projection into per-head q, k, v, with q pre-scaled by 1 / sqrt(HEAD_DIM).

x is (BATCH, SEQ, 3 * HEADS * HEAD_DIM) bf16 laid out as [q | k | v] along the last dim, each
part (HEADS, HEAD_DIM) head-major. Outputs q * HEAD_DIM^-0.5, k, v, each (BATCH, HEADS, SEQ,
HEAD_DIM) bf16 and contiguous; k and v are exact copies, q is one bf16 rounding of x * scale.
"""

import torch
import torch.nn as nn

BATCH = 2
SEQ = 77
HEADS = 4
HEAD_DIM = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        B, S, _ = x.shape
        q, k, v = x.chunk(3, dim=-1)
        q = q.reshape(B, S, HEADS, HEAD_DIM).transpose(1, 2) * (HEAD_DIM**-0.5)
        k = k.reshape(B, S, HEADS, HEAD_DIM).transpose(1, 2)
        v = v.reshape(B, S, HEADS, HEAD_DIM).transpose(1, 2)
        return q.contiguous(), k.contiguous(), v.contiguous()


def get_inputs():
    x = torch.randn(BATCH, SEQ, 3 * HEADS * HEAD_DIM).to(torch.bfloat16)
    return [x]


def get_init_inputs():
    return []
