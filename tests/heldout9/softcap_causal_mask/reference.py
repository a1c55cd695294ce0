"""Logit soft-capping with a causal mask whose diagonal is offset (queries at the end), in float32.

scores is (BATCH, HEADS, QLEN, KLEN) fp32 attention logits for the last QLEN of KLEN positions
(decoding with a KV cache): query i sits at position i + KLEN - QLEN and may see keys
j <= i + KLEN - QLEN. out = CAP * tanh(scores / CAP) (Gemma-2 style soft-capping, CAP = 30)
where allowed, -inf where masked.
"""

import torch
import torch.nn as nn

BATCH = 2
HEADS = 3
QLEN = 40
KLEN = 70
CAP = 30.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        q_len, k_len = scores.shape[-2], scores.shape[-1]
        allowed = torch.ones(q_len, k_len, dtype=torch.bool, device=scores.device).tril(diagonal=k_len - q_len)
        capped = CAP * torch.tanh(scores / CAP)
        return capped.masked_fill(~allowed, float("-inf"))


def get_inputs():
    scores = 40.0 * torch.randn(BATCH, HEADS, QLEN, KLEN)
    return [scores]


def get_init_inputs():
    return []
