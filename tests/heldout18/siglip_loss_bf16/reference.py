"""SigLIP pairwise sigmoid loss, per image row.

img, txt (N, D) bf16 L2-normalised embeddings (pair i matches txt i; every 7th caption contradicts
the previous image: close to minus its embedding). logits = exp(logit_scale) img txt^T + logit_bias
(module parameters, log 20 and -8), labels +1 on the diagonal and -1 elsewhere;
loss[i] = sum_j -log sigmoid(label_ij logits_ij) in fp32, out (N,) fp32.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

N = 100
DIM = 80


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor([math.log(20.0)]))
        self.logit_bias = nn.Parameter(torch.tensor([-8.0]))

    def forward(self, img, txt):
        ct = torch.promote_types(img.dtype, torch.float32)
        logits = self.logit_scale.to(ct).exp() * (img.to(ct) @ txt.to(ct).T) + self.logit_bias.to(ct)
        labels = 2.0 * torch.eye(img.shape[0], dtype=ct, device=img.device) - 1.0
        return -F.logsigmoid(labels * logits).sum(dim=1)


def get_inputs():
    img = F.normalize(torch.randn(N, DIM), dim=1)
    txt = img + 0.6 * torch.randn(N, DIM) / math.sqrt(DIM)
    contra = torch.arange(3, N, 7)
    txt[contra] = -img[contra - 1] + 0.1 * torch.randn(len(contra), DIM) / math.sqrt(DIM)
    txt = F.normalize(txt, dim=1)
    return [img.bfloat16(), txt.bfloat16()]


def get_init_inputs():
    return []
