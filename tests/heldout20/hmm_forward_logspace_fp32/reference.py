"""HMM forward algorithm in log space (speech / sequence models).

log_emit (B, T, S) fp32 emission log-likelihoods, log_trans (S, S) fp32 with log_trans[i, j] the log
probability of moving from state i to state j (rows log-normalised, not symmetric), log_init (S,)
fp32. alpha_0 = log_init + log_emit[:, 0]; alpha_t[j] = logsumexp_i(alpha_{t-1}[i] + log_trans[i, j])
+ log_emit[:, t, j]. Returns every alpha (B, T, S) fp32; the emissions average about -25 per step,
so alpha falls to about -1000 by the last step (exp of it underflows).
"""

import torch
import torch.nn as nn

BATCH = 6
STEPS = 40
STATES = 20


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, log_emit, log_trans, log_init):
        alpha = log_init[None, :] + log_emit[:, 0]
        out = [alpha]
        for t in range(1, log_emit.shape[1]):
            alpha = torch.logsumexp(alpha[:, :, None] + log_trans[None], dim=1) + log_emit[:, t]
            out.append(alpha)
        return torch.stack(out, dim=1)


def get_inputs():
    log_emit = -5.0 - 40.0 * torch.rand(BATCH, STEPS, STATES)
    log_trans = torch.log_softmax(2.0 * torch.randn(STATES, STATES), dim=1)
    log_init = torch.log_softmax(torch.randn(STATES), dim=0)
    return [log_emit, log_trans, log_init]


def get_init_inputs():
    return []
