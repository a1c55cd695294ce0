"""One fused Lion optimizer step (Chen et al. 2023) with decoupled weight decay.

param (N,) fp32, grad (N,) bf16, exp_avg (N,) fp32; ~5% of the entries are frozen (grad = 0 and
exp_avg = 0, so the update sign is 0 there). c = BETA1 m + (1 - BETA1) g,
p' = p (1 - LR WD) - LR sign(c), m' = BETA2 m + (1 - BETA2) g. Returns (p', m'), both fp32.
"""

import torch
import torch.nn as nn

N = 30000
LR = 3e-4
BETA1 = 0.9
BETA2 = 0.99
WD = 0.1


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, param, grad, exp_avg):
        ct = torch.promote_types(param.dtype, torch.float32)
        p, g, m = param.to(ct), grad.to(ct), exp_avg.to(ct)
        c = BETA1 * m + (1.0 - BETA1) * g
        p_new = p * (1.0 - LR * WD) - LR * torch.sign(c)
        m_new = BETA2 * m + (1.0 - BETA2) * g
        return p_new, m_new


def get_inputs():
    param = 0.02 * torch.randn(N)
    grad = 1e-3 * torch.randn(N)
    exp_avg = 1e-3 * torch.randn(N)
    frozen = torch.rand(N) < 0.05
    grad = torch.where(frozen, torch.zeros_like(grad), grad)
    exp_avg = torch.where(frozen, torch.zeros_like(exp_avg), exp_avg)
    return [param, grad.bfloat16(), exp_avg]


def get_init_inputs():
    return []
