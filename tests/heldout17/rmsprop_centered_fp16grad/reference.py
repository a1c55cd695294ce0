"""One fused step of centered RMSprop with momentum and L2 weight decay (torch.optim.RMSprop,
centered=True).

param (N,) fp32, grad (N,) fp16, square_avg / grad_avg / momentum_buffer (N,) fp32; ~5% of the
entries are padding (param, grad and every state 0). g = grad + WD p,
v' = ALPHA v + (1 - ALPHA) g^2, a' = ALPHA a + (1 - ALPHA) g, avg = sqrt(v' - a'^2) + EPS,
b' = MOMENTUM b + g / avg, p' = p - LR b'. Returns (p', v', a', b'), all fp32.
"""

import torch
import torch.nn as nn

N = 20000
LR = 1e-3
ALPHA = 0.99
EPS = 1e-8
MOMENTUM = 0.9
WD = 1e-2


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, param, grad, square_avg, grad_avg, momentum_buffer):
        ct = torch.promote_types(param.dtype, torch.float32)
        p, g, v, a, b = (t.to(ct) for t in (param, grad, square_avg, grad_avg, momentum_buffer))
        g = g + WD * p
        v_new = ALPHA * v + (1.0 - ALPHA) * g * g
        a_new = ALPHA * a + (1.0 - ALPHA) * g
        avg = torch.sqrt(v_new - a_new * a_new) + EPS
        b_new = MOMENTUM * b + g / avg
        p_new = p - LR * b_new
        return p_new, v_new, a_new, b_new


def get_inputs():
    param = 0.02 * torch.randn(N)
    grad = 1e-3 * torch.randn(N)
    grad_avg = 5e-4 * torch.randn(N)
    square_avg = grad_avg * grad_avg + 1e-6 * (0.5 + torch.rand(N))
    momentum_buffer = torch.randn(N)
    pad = torch.rand(N) < 0.05
    param, grad, square_avg, grad_avg, momentum_buffer = (
        torch.where(pad, torch.zeros_like(t), t) for t in (param, grad, square_avg, grad_avg, momentum_buffer)
    )
    return [param, grad.half(), square_avg, grad_avg, momentum_buffer]


def get_init_inputs():
    return []
