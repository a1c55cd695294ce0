"""ArcFace additive angular margin logits (face recognition), easy_margin=False (insightface).

cosine (B, C) fp16 cosines between normalised embeddings and class centres (fp16 rounding leaves
the label entry of every 12th row at 1 + 2^-10, past 1), labels (B,) int64. In fp32: c = clamp(cosine, -1, 1),
sin = sqrt(1 - c^2), phi = c cos(m) - sin sin(m) where c > cos(pi - m), else c - m sin(pi - m)
(the monotone fallback past theta + m = pi; ~6% of the label entries are below cos(pi - m)).
out = s * (phi in the label column, c elsewhere), fp16; s = 30 and m = 0.5 constructor arguments.
"""

import math

import torch
import torch.nn as nn

BATCH = 70
CLASSES = 300


class Model(nn.Module):
    def __init__(self, s, m):
        super().__init__()
        self.s = s
        self.m = m

    def forward(self, cosine, labels):
        c = cosine.to(torch.promote_types(cosine.dtype, torch.float32)).clamp(-1.0, 1.0)
        sine = torch.sqrt(1.0 - c * c)
        phi = c * math.cos(self.m) - sine * math.sin(self.m)
        phi = torch.where(c > math.cos(math.pi - self.m), phi, c - math.sin(math.pi - self.m) * self.m)
        onehot = labels[:, None] == torch.arange(cosine.shape[1], device=cosine.device)[None, :]
        return (self.s * torch.where(onehot, phi, c)).to(cosine.dtype)


def get_inputs():
    cosine = (0.25 * torch.randn(BATCH, CLASSES)).clamp(-1.0, 1.0)
    labels = torch.randint(0, CLASSES, (BATCH,))
    target = 2.0 * torch.rand(BATCH) - 1.0
    target[::12] = 1.0 + 2.0**-10
    rows = torch.arange(BATCH)
    cosine[rows, labels] = target
    return [cosine.half(), labels]


def get_init_inputs():
    return [30.0, 0.5]
