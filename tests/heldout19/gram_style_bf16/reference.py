"""Gram matrices of feature maps (neural style transfer), normalised by the number of elements.

features (B, C, H, W) bf16 -> G (B, C, C) fp32, G[b] = F_b F_b^T / (C H W) with F_b the (C, H W)
view of sample b. Features are post-ReLU activations (about half are 0), so every entry of G is a
sum of non-negative products.
"""

import torch
import torch.nn as nn

BATCH = 2
CHANNELS = 40
HEIGHT = 19
WIDTH = 21


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, features):
        wide = torch.promote_types(features.dtype, torch.float32)
        b, c, h, w = features.shape
        f = features.to(wide).reshape(b, c, h * w)
        return f @ f.transpose(1, 2) / (c * h * w)


def get_inputs():
    features = torch.relu(torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) + 0.2 * torch.randn(BATCH, CHANNELS, 1, 1))
    return [features.to(torch.bfloat16)]


def get_init_inputs():
    return []
