"""One fused Adam step (with bias correction) over a flat fp32 parameter of 10123 elements.

Returns the new parameter and the new first and second moments; the inputs are left untouched.
10123 is not a multiple of the 1024-wide block.
"""

import torch
import torch.nn as nn

N = 10123


class Model(nn.Module):
    def __init__(self, lr: float, beta1: float, beta2: float, eps: float, step: int):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.step = lr, beta1, beta2, eps, step

    def forward(self, param, grad, exp_avg, exp_avg_sq):
        m = self.beta1 * exp_avg + (1.0 - self.beta1) * grad
        v = self.beta2 * exp_avg_sq + (1.0 - self.beta2) * grad * grad
        m_hat = m / (1.0 - self.beta1**self.step)
        v_hat = v / (1.0 - self.beta2**self.step)
        new_param = param - self.lr * m_hat / (torch.sqrt(v_hat) + self.eps)
        return new_param, m, v


def get_inputs():
    param = torch.randn(N)
    grad = 0.01 * torch.randn(N)
    exp_avg = 0.01 * torch.randn(N)
    exp_avg_sq = 1e-4 * torch.rand(N)
    return [param, grad, exp_avg, exp_avg_sq]


def get_init_inputs():
    return [1e-2, 0.9, 0.999, 1e-8, 10]
