"""ALiBi attention bias with a causal mask, in float16.

scores is (BATCH, HEADS, SEQ, SEQ) fp16 attention logits. Head h has the slope
m_h = 2 ** (-8 (h + 1) / HEADS); for query i and key j <= i, out = scores + m_h (j - i), and the
keys j > i (the future) are masked to -inf. The bias and the add are computed in (at least) fp32
and rounded to fp16 once.
"""

import torch
import torch.nn as nn

BATCH = 2
HEADS = 6
SEQ = 45


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        _, heads, q_len, k_len = scores.shape
        ct = torch.promote_types(scores.dtype, torch.float32)
        h = torch.arange(heads, dtype=ct, device=scores.device)
        slopes = torch.exp2(-8.0 * (h + 1) / heads)
        i = torch.arange(q_len, device=scores.device)[:, None]
        j = torch.arange(k_len, device=scores.device)[None, :]
        bias = slopes[:, None, None] * (j - i).to(ct)[None, :, :]
        out = scores.to(ct) + bias[None]
        out = out.masked_fill((j > i)[None, None], float("-inf"))
        return out.to(scores.dtype)


def get_inputs():
    scores = 3.0 * torch.randn(BATCH, HEADS, SEQ, SEQ, dtype=torch.float16)
    return [scores]


def get_init_inputs():
    return []
