"""One step of Viterbi decoding in log space (an HMM / CRF tagger or a speech decoder): for every sequence b and
state j, score[b, j] = max_i (delta[b, i] + log_a[i, j]) + emit[b, j] and backptr[b, j] = the first i that attains
the maximum (torch.max semantics; 0 where every path is -inf). delta (B, S) fp32 holds the previous step's scores
(-inf for dead states), log_a (S, S) fp32 the log transition matrix (-inf for forbidden transitions), emit the
step's emission log-likelihoods, time step T // 2 of a (B, T, S) buffer (row stride T S). Two outputs: score (B, S) fp32
and backptr (B, S) int64.
"""

import torch
import torch.nn as nn

BATCH = 37
STATES = 100
STEPS = 12


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, delta, log_a, emit):
        cand = delta[:, :, None] + log_a[None, :, :]
        best, arg = cand.max(dim=1)
        return best + emit, arg


def get_inputs():
    B, S, T = BATCH, STATES, STEPS
    delta = -torch.randint(0, 40, (B, S)).to(torch.float32) * 0.5  # half steps: many tied path scores
    delta[0] = 0.0  # every state tied
    delta[1, : S // 2] = float("-inf")  # dead states
    delta[2, S - 1] = 5.0  # the best path from the last state
    log_a = -torch.randint(0, 16, (S, S)).to(torch.float32) * 0.5
    log_a[torch.rand(S, S) < 0.1] = float("-inf")  # forbidden transitions
    log_a[:, 3] = float("-inf")  # an unreachable state
    log_a[S // 2 :, S - 1] = 2.0  # the last state best reached from the second half
    emit = torch.randn(B, T, S) * 2.0 - 3.0
    return [delta, log_a, emit[:, T // 2, :]]


def get_init_inputs():
    return []
