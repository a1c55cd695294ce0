"""Weight-only int8 linear layer (per-output-channel scales) for a few tokens, in float16.

x is (TOKENS, IN_FEATURES) fp16 activations, w is (OUT_FEATURES, IN_FEATURES) int8 weights and
scale is (OUT_FEATURES,) fp16 per-channel dequantisation scales:
out[m, n] = scale[n] * sum_k x[m, k] * w[n, k], a (TOKENS, OUT_FEATURES) fp16 tensor, computed in
(at least) fp32 and rounded once.
"""

import torch
import torch.nn as nn

TOKENS = 3
IN_FEATURES = 700
OUT_FEATURES = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(x.dtype, torch.float32)
        out = (x.to(ct) @ w.to(ct).t()) * scale.to(ct)
        return out.to(x.dtype)


def get_inputs():
    x = torch.randn(TOKENS, IN_FEATURES, dtype=torch.float16)
    w = torch.randint(-127, 128, (OUT_FEATURES, IN_FEATURES), dtype=torch.int8)
    scale = (0.002 + 0.01 * torch.rand(OUT_FEATURES)).to(torch.float16)
    return [x, w, scale]


def get_init_inputs():
    return []
