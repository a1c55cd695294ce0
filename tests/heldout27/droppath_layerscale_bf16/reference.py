"""Residual add with LayerScale and stochastic depth (timm DropPath, the mask drawn beforehand): for a kept sample
out = x + gamma[c] y / KEEP_PROB, for a dropped sample out = x (its branch is skipped, so whatever it holds, inf or
NaN included, never reaches the output); computed in fp32, one rounding to bf16. x (B, N, C) bf16 tokens, y the
branch output as the (B, N, C) transpose of a channel-first (B, C, N) bf16 buffer, gamma (C,) fp32, keep (B,) bool;
KEEP_PROB 0.8 from the constructor; out (B, N, C) bf16.
"""

import torch
import torch.nn as nn

BATCH = 6
TOKENS = 197
DIM = 200


class Model(nn.Module):
    def __init__(self, keep_prob):
        super().__init__()
        self.keep_prob = keep_prob

    def forward(self, x, y, gamma, keep):
        ft = torch.promote_types(x.dtype, torch.float32)
        xf = x.to(ft)
        branch = gamma.to(ft) * y.to(ft) / self.keep_prob
        out = torch.where(keep.view(-1, 1, 1), xf + branch, xf)
        return out.to(x.dtype)


def get_inputs():
    B, N, C = BATCH, TOKENS, DIM
    x = torch.randn(B, N, C)
    x[:, 0] *= 20.0  # a loud class token
    yc = torch.randn(B, C, N) * 2.0
    yc[1, :, N // 2] = float("inf")  # an overflowed branch in a dropped sample
    yc[4, C // 2] = float("nan")
    gamma = torch.rand(C) * 0.9 + 0.1
    gamma[: C // 10] = 1e-5  # channels still at the LayerScale init
    keep = torch.rand(B) < 0.7
    keep[0] = True
    keep[1] = False
    keep[4] = False
    keep[B - 1] = True
    return [x.to(torch.bfloat16), yc.to(torch.bfloat16).transpose(1, 2), gamma, keep]


def get_init_inputs():
    return [0.8]
