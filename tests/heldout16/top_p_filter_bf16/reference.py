"""Temperature + nucleus (top-p) filtering of next-token logits, as HF's warpers chain them.

logits (BATCH, VOCAB) bf16. s = logits / TEMP (fp32); p = softmax(s). A token is kept when the
probability mass of the tokens strictly above it (s_j > s_i) is below TOP_P (this is HF's
sorted-cumsum rule: the top token is always kept, tied tokens share one fate). Output: s where
kept, -inf elsewhere, in the logits' dtype (bf16: many exact ties). Rows sit around per-row
offsets in [-10, 10), except every 4th row (b = 1 mod 4), around +65: s up to ~100, beyond
exp's fp32 range.
"""

import torch
import torch.nn as nn

BATCH = 12
VOCAB = 333
TEMP = 0.7
TOP_P = 0.9


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(logits.dtype, torch.float32)
        s = logits.to(ct) / TEMP
        p = torch.softmax(s, dim=-1)
        above = s[:, None, :] > s[:, :, None]  # [b, i, j]: token j above token i
        mass = (p[:, None, :] * above).sum(-1)
        keep = mass < TOP_P
        return torch.where(keep, s, torch.full_like(s, float("-inf"))).to(logits.dtype)


def get_inputs():
    offset = torch.where(torch.arange(BATCH)[:, None] % 4 == 1, 65.0, 20.0 * torch.rand(BATCH, 1) - 10.0)
    logits = 1.5 * torch.randn(BATCH, VOCAB) + offset
    return [logits.bfloat16()]


def get_init_inputs():
    return []
