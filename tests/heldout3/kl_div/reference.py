"""KL divergence with reduction="batchmean": F.kl_div(log_q, p, reduction="batchmean").

log_q is (33, 1000) fp32 log-probabilities (log_softmax of normal logits); p is (33, 1000) fp32
target probabilities of which about 30% are exactly zero (a sparse / label-smoothed target,
renormalised). Terms with p = 0 contribute zero (PyTorch uses xlogy). The output is the fp32 sum
over every element divided by the batch size 33.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

B, C = 33, 1000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, log_q: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        return F.kl_div(log_q, p, reduction="batchmean")


def get_inputs():
    log_q = torch.log_softmax(torch.randn(B, C) * 2, dim=1)
    p = torch.softmax(torch.randn(B, C), dim=1)
    p = p * (torch.rand(B, C) > 0.3)
    p = p / p.sum(dim=1, keepdim=True)
    return [log_q, p]


def get_init_inputs():
    return []
