"""SnakeBeta activation of BigVGAN vocoders with log-scale parameters: out = x + 1 / (exp(beta[c]) + 1e-9)
sin^2(x exp(alpha[c])), per channel c, computed in fp32 with one rounding to bf16. x (B, C, T) bf16 is the transpose
of a channel-last (B, T, C) buffer; alpha, beta (C,) fp32; one output (B, C, T) bf16.
"""

import torch
import torch.nn as nn

BATCH = 4
CHANNELS = 90
STEPS = 201


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, alpha, beta):
        ft = torch.promote_types(x.dtype, torch.float32)
        xf = x.to(ft)
        a = alpha.to(ft).exp()[None, :, None]
        b = beta.to(ft).exp()[None, :, None]
        return (xf + 1.0 / (b + 1e-9) * torch.sin(xf * a) ** 2).to(x.dtype)


def get_inputs():
    B, C, T = BATCH, CHANNELS, STEPS
    buf = (torch.randn(B, T, C) * 2.0).to(torch.bfloat16)
    buf[:, :, 0] = 0.0  # a silent channel
    buf[min(1, B - 1), :, C - 1] = 40.0  # a loud channel: large sine arguments
    alpha = torch.randn(C) * 0.8
    beta = torch.randn(C) * 0.8
    alpha[min(1, C - 1)] = 0.0  # a = 1
    beta[min(2, C - 1)] = -4.0  # a strong periodic term (1 / b ~ 55)
    beta[min(3, C - 1)] = 6.0  # a weak one
    alpha[C - 1] = 1.5
    return [buf.transpose(1, 2), alpha, beta]


def get_init_inputs():
    return []
