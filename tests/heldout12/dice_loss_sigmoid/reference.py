"""Per-sample soft Dice loss on sigmoid probabilities: 1 - (2 sum p t + S) / (sum p + sum t + S).

logits (BATCH, CLASSES, HEIGHT, WIDTH) bf16 from a confident segmentation model (|logit| ~ 12,
sign matching the target), target a bool mask of the same shape (~30% set), S = SMOOTH = 1. The
sums run over everything but the batch dim. The loss is tiny (~1e-5), so it is evaluated as the
equal E / (P + T + S), E = sum p (1 - t) + (1 - p) t with 1 - p = sigmoid(-logit), which has no
cancellation; in fp32 (fp64 when the logits are). Returns (BATCH,) fp32.
"""

import torch
import torch.nn as nn

BATCH = 12
CLASSES = 2
HEIGHT = 37
WIDTH = 41
SMOOTH = 1.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(logits.dtype, torch.float32)
        x = logits.to(ct).flatten(1)
        p = torch.sigmoid(x)
        q = torch.sigmoid(-x)
        t = target.flatten(1).to(ct)
        err = (p * (1.0 - t) + q * t).sum(dim=1)
        return err / (p.sum(dim=1) + t.sum(dim=1) + SMOOTH)


def get_inputs():
    target = torch.rand(BATCH, CLASSES, HEIGHT, WIDTH) < 0.3
    sign = target.to(torch.float32) * 2.0 - 1.0
    logits = (sign * (12.0 + torch.randn(BATCH, CLASSES, HEIGHT, WIDTH))).to(torch.bfloat16)
    return [logits, target]


def get_init_inputs():
    return []
