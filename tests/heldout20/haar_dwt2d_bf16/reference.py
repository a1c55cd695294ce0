"""One level of the orthonormal 2-D Haar wavelet transform (image compression / denoising).

x (B, C, 2 H2, 2 W2) bf16. For the 2 x 2 block [[a, b], [c, d]] at (2i, 2j), in fp32:
approximation A = (a + b + c + d) / 2, and the details H = (a + b - c - d) / 2 (rows differ),
V = (a - b + c - d) / 2 (columns differ), D = (a - b - c + d) / 2. Output (B, C, 4, H2, W2) bf16 =
[A, H, V, D], one rounding. The images are smooth gradients plus noise around 1.
"""

import torch
import torch.nn as nn

BATCH = 2
CHANNELS = 3
HALF_H = 19
HALF_W = 27


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        f = x.to(torch.promote_types(x.dtype, torch.float32))
        a = f[..., 0::2, 0::2]
        b = f[..., 0::2, 1::2]
        c = f[..., 1::2, 0::2]
        d = f[..., 1::2, 1::2]
        bands = [a + b + c + d, a + b - c - d, a - b + c - d, a - b - c + d]
        return (torch.stack(bands, dim=2) * 0.5).to(x.dtype)


def get_inputs():
    h = torch.linspace(0.0, 1.0, 2 * HALF_H)[:, None]
    w = torch.linspace(0.0, 1.0, 2 * HALF_W)[None, :]
    x = 1.0 + h * w + 0.3 * torch.randn(BATCH, CHANNELS, 2 * HALF_H, 2 * HALF_W)
    return [x.bfloat16()]


def get_init_inputs():
    return []
