"""LoRA linear layer forward: y = x W^T + (ALPHA / R) (x A^T) B^T (no bias).

x (M, K) fp16 tokens, W (N, K) fp16 base weight (nn.Linear layout), A (R, K) fp16 down
projection, B (N, R) fp16 up projection (both trained, B non-zero), ALPHA / R = 2. Computed in fp32
(fp64 for the golden) and rounded once to fp16; the low-rank product is taken as (x A^T) B^T, as
LoRA does (never forming B A).
"""

import torch
import torch.nn as nn

M = 70
K = 200
N = 100
R = 16
ALPHA = 32.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        xf, wf, af, bf = x.to(ct), w.to(ct), a.to(ct), b.to(ct)
        y = xf @ wf.T + (ALPHA / R) * ((xf @ af.T) @ bf.T)
        return y.to(x.dtype)


def get_inputs():
    x = torch.randn(M, K)
    w = 0.07 * torch.randn(N, K)
    a = 0.07 * torch.randn(R, K)
    b = 0.25 * torch.randn(N, R)
    return [x.half(), w.half(), a.half(), b.half()]


def get_init_inputs():
    return []
