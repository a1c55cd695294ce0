"""Gaussian negative log-likelihood, `F.gaussian_nll_loss(mu, target, var, eps=1e-6)` (mean).

mu, target, var (ROWS, COLS) bf16 (a heteroscedastic regression head): loss = mean of
0.5 (log(max(var, eps)) + (mu - target)^2 / max(var, eps)). var spans exp(-4) .. exp(3); about 3%
of the elements have var = 0 exactly with target = mu (points the model predicts as certain:
the clamp gives them 0.5 log(eps), and 0 / eps = 0). Returned as an fp32 scalar.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 64
COLS = 300
EPS = 1e-6


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mu: torch.Tensor, target: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(mu.dtype, torch.float32)
        return F.gaussian_nll_loss(mu.to(ct), target.to(ct), var.to(ct), eps=EPS, reduction="mean")


def get_inputs():
    mu = (2.0 * torch.randn(ROWS, COLS)).bfloat16()
    var = torch.exp(torch.empty(ROWS, COLS).uniform_(-4.0, 3.0)).bfloat16()
    target = (mu.float() + var.float().sqrt() * torch.randn(ROWS, COLS)).bfloat16()
    certain = torch.rand(ROWS, COLS) < 0.03
    var = torch.where(certain, torch.zeros_like(var), var)
    target = torch.where(certain, mu, target)
    return [mu, target, var]


def get_init_inputs():
    return []
