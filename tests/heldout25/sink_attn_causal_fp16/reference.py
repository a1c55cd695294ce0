"""Causal self-attention with learned attention sinks (gpt-oss style): every head h has a sink logit
s_h that joins each query's softmax as one extra column and is then dropped, so
o_i = sum_{j <= i} exp(z_ij) v_j / (exp(s_h) + sum_{j <= i} exp(z_ij)) with z = q k^T / sqrt(D).
q, v (B, H, S, D) fp16 contiguous; k (B, H, S, D) fp16 is a head-transposed view of a (B, S, H, D)
buffer (the layout of a fused KV projection); sinks (H,) fp32; out (B, H, S, D) fp16.
"""

import torch
import torch.nn as nn

BATCH = 2
HEADS = 3
SEQ = 75


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v, sinks):
        ft = torch.promote_types(q.dtype, torch.float32)
        B, H, S, D = q.shape
        z = (q.to(ft) @ k.to(ft).transpose(-1, -2)) / D**0.5
        causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
        z = z.masked_fill(~causal, float("-inf"))
        sink = sinks.to(ft).view(1, H, 1, 1).expand(B, H, S, 1)
        p = torch.softmax(torch.cat([z, sink], dim=-1), dim=-1)[..., :S]
        return (p @ v.to(ft)).to(q.dtype)


def get_inputs():
    d = 32
    q = torch.randn(BATCH, HEADS, SEQ, d)
    q[:, 1] = 30.0 * q[:, 1]  # head 1: logits in the hundreds (a peaked softmax)
    k = torch.randn(BATCH, SEQ, HEADS, d)
    v = torch.randn(BATCH, HEADS, SEQ, d)
    v[:, :, 0] = 8.0  # the first key's value: what row 0 attends to (with the sink)
    sinks = torch.tensor([0.5, -2.0, 4.0])[:HEADS]  # head 2: the sink takes most of the mass early on
    return [q.to(torch.float16), k.to(torch.float16).transpose(1, 2), v.to(torch.float16), sinks]


def get_init_inputs():
    return []
