"""Factorization machine (FM) logit over multi-field categorical features.

ids (B, F) int64 per-field ids in [0, FIELD_VOCAB), mapped into one shared table by the per-field
offsets f * FIELD_VOCAB (an int64 buffer); table (F * FIELD_VOCAB, D) bf16 embeddings (a shared
offset, so the second-order term cancels), lin (F * FIELD_VOCAB,) fp32 first-order weights, bias
a module parameter. y = bias + sum_f lin[g_f] + 0.5 sum_d ((sum_f e_fd)^2 - sum_f e_fd^2) with
e_f = table[g_f], all in fp32; out (B,) fp32.
"""

import torch
import torch.nn as nn

BATCH = 50
FIELDS = 13
FIELD_VOCAB = 30
DIM = 40


class Model(nn.Module):
    def __init__(self, fields, field_vocab):
        super().__init__()
        self.register_buffer("offsets", torch.arange(fields, dtype=torch.int64) * field_vocab)
        self.bias = nn.Parameter(torch.tensor([0.25]))

    def forward(self, ids, table, lin):
        ct = torch.promote_types(table.dtype, torch.float32)
        g = ids + self.offsets[None, :]
        e = table[g].to(ct)
        s = e.sum(dim=1)
        inter = 0.5 * (s * s - (e * e).sum(dim=1)).sum(dim=1)
        return self.bias.to(ct) + lin[g].to(ct).sum(dim=1) + inter


def get_inputs():
    ids = torch.randint(0, FIELD_VOCAB, (BATCH, FIELDS))
    table = 0.3 * torch.randn(FIELDS * FIELD_VOCAB, DIM) + 0.2
    lin = 0.1 * torch.randn(FIELDS * FIELD_VOCAB)
    return [ids, table.bfloat16(), lin]


def get_init_inputs():
    return [FIELDS, FIELD_VOCAB]
