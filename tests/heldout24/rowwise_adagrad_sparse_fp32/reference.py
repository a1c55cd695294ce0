"""Row-wise (sparse) Adagrad step of an embedding table, as in fbgemm's rowwise_adagrad for
recommendation models: only the rows that received a gradient are touched.

weight (V, D) fp32, state (V,) fp32 (one accumulator per row), ids (U,) int64 unique row ids,
grad (U, D) fp32 (the coalesced gradient of those rows). For each i: s = state[ids[i]] +
mean_d grad[i, d]^2, state[ids[i]] = s and weight[ids[i]] -= lr grad[i] / (sqrt(s) + eps).
Returns the new (weight, state); the inputs are not modified.
"""

import torch
import torch.nn as nn

VOCAB = 160
DIM = 40
UNIQUE = 116


class Model(nn.Module):
    def __init__(self, lr, eps):
        super().__init__()
        self.lr = lr
        self.eps = eps

    def forward(self, weight, state, ids, grad):
        w = weight.clone()
        st = state.clone()
        s = st[ids] + (grad * grad).mean(dim=1)
        st[ids] = s
        w[ids] -= self.lr * grad / (torch.sqrt(s)[:, None] + self.eps)
        return w, st


def get_inputs():
    weight = 0.1 * torch.randn(VOCAB, DIM)
    state = torch.rand(VOCAB) * 0.05
    state[: VOCAB // 3] = 0.0  # rows never updated before
    u = min(UNIQUE, VOCAB)
    # unique ids: the first row, the last row, row 1 (fresh), then random others
    ids = torch.cat([torch.tensor([0, VOCAB - 1, 1]), 2 + torch.randperm(VOCAB - 3)[: u - 3]])
    grad = torch.randn(u, DIM) * torch.logspace(-3, 1, u).view(-1, 1)
    grad[2] = 0.0  # an all-zero gradient on a fresh row (state 0): the step is 0 / (0 + eps)
    grad[3, DIM - 1] = 50.0  # one large entry in the tail columns
    return [weight, state, ids, grad]


def get_init_inputs():
    return [0.05, 1e-8]
