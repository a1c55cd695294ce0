"""T5 decoder self-attention scores plus the learned relative-position bias, with the causal mask.

scores (B, H, Q, K) bf16 for the last Q of K positions (a cached decoder: query i sits at
position i + K - Q), bias_table (NUM_BUCKETS, H) fp32 (the `relative_attention_bias` weight).
Unidirectional bucket of n = max(ctx - mem, 0) as in HF `_relative_position_bucket`
(bidirectional=False): n itself for n < NB / 2, else NB / 2 + trunc(log(n / (NB / 2)) /
log(MAX_DISTANCE / (NB / 2)) (NB - NB / 2)) clamped to NB - 1, the log in fp32.
out = scores + bias[bucket, h], -inf where mem > ctx; bf16 out (one rounding).
"""

import math

import torch
import torch.nn as nn

BATCH = 2
HEADS = 6
Q_LEN = 45
K_LEN = 70
NUM_BUCKETS = 32
MAX_DISTANCE = 50


def relative_bucket(n, num_buckets, max_distance):
    max_exact = num_buckets // 2
    is_small = n < max_exact
    ratio = torch.log(n.clamp(min=1).float() / max_exact) / math.log(max_distance / max_exact)
    large = max_exact + (ratio * (num_buckets - max_exact)).to(torch.long)
    large = torch.clamp(large, max=num_buckets - 1)
    return torch.where(is_small, n, large)


class Model(nn.Module):
    def __init__(self, max_distance):
        super().__init__()
        self.max_distance = max_distance

    def forward(self, scores, bias_table):
        q_len, k_len = scores.shape[-2:]
        ctx = torch.arange(q_len, device=scores.device)[:, None] + (k_len - q_len)
        mem = torch.arange(k_len, device=scores.device)[None, :]
        n = torch.clamp(ctx - mem, min=0)
        bucket = relative_bucket(n, bias_table.shape[0], self.max_distance)
        bias = bias_table[bucket].permute(2, 0, 1).unsqueeze(0)
        ct = torch.promote_types(scores.dtype, torch.float32)
        out = scores.to(ct) + bias.to(ct)
        out = out.masked_fill(mem > ctx, float("-inf"))
        return out.to(scores.dtype)


def get_inputs():
    scores = 3.0 * torch.randn(BATCH, HEADS, Q_LEN, K_LEN)
    bias_table = torch.randn(NUM_BUCKETS, HEADS)
    return [scores.bfloat16(), bias_table]


def get_init_inputs():
    return [MAX_DISTANCE]
