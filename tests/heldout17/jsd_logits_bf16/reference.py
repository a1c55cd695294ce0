"""Per-row Jensen-Shannon divergence between the softmaxes of two logit rows (distillation loss,
beta = 0.5), reduction "none".

student, teacher (R, V) bf16 logits, the teacher a noisy copy of the student; every 5th row is
x10 (a confident row: most probabilities underflow fp32). lp = log_softmax(student),
lq = log_softmax(teacher), log m = logaddexp(lp, lq) - log 2,
out[r] = 0.5 sum_v (p (lp - log m) + q (lq - log m)); fp32 out (R,).
"""

import math

import torch
import torch.nn as nn

ROWS = 40
VOCAB = 700


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, student, teacher):
        ct = torch.promote_types(student.dtype, torch.float32)
        lp = torch.log_softmax(student.to(ct), dim=-1)
        lq = torch.log_softmax(teacher.to(ct), dim=-1)
        lm = torch.logaddexp(lp, lq) - math.log(2.0)
        terms = torch.exp(lp) * (lp - lm) + torch.exp(lq) * (lq - lm)
        return 0.5 * terms.sum(dim=-1)


def get_inputs():
    student = 2.0 * torch.randn(ROWS, VOCAB) + 8.0 * torch.rand(ROWS, 1) - 4.0
    teacher = student + 0.7 * torch.randn(ROWS, VOCAB)
    scale = torch.ones(ROWS, 1)
    scale[::5] = 10.0
    return [(student * scale).bfloat16(), (teacher * scale).bfloat16()]


def get_init_inputs():
    return []
