"""Class-weighted negative log-likelihood with ignore_index (F.nll_loss, reduction="mean").

logp is (ROWS, CLASSES) bf16 log-probabilities, target (ROWS,) int64 class ids with about 10%
set to IGNORE_INDEX = -100, weight (CLASSES,) fp32 positive class weights. The loss is
sum_i w[t_i] (-logp[i, t_i]) / sum_i w[t_i] over the rows with t_i != IGNORE_INDEX, computed in
(at least) fp32: a 0-dim fp32 tensor.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 1000
CLASSES = 37
IGNORE_INDEX = -100


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logp: torch.Tensor, target: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(logp.dtype, torch.float32)
        return F.nll_loss(logp.to(ct), target, weight=weight.to(ct), ignore_index=IGNORE_INDEX)


def get_inputs():
    logp = torch.log_softmax(2.0 * torch.randn(ROWS, CLASSES), dim=1).to(torch.bfloat16)
    target = torch.randint(0, CLASSES, (ROWS,))
    target[torch.rand(ROWS) < 0.1] = IGNORE_INDEX
    weight = 0.5 + 1.5 * torch.rand(CLASSES)
    return [logp, target, weight]


def get_init_inputs():
    return []
