"""SSIM map of image pairs (the image-quality metric / loss of Wang et al. 2004 with a uniform
window, as skimage.metrics.structural_similarity(use_sample_covariance=False) computes it).

x, y (B, C, H, W) fp16 in [0, 1] (data range 1). Over every valid WIN x WIN window (no padding):
mu = window means, var = E[v^2] - mu^2, cov = E[x y] - mu_x mu_y (population), and
ssim = (2 mu_x mu_y + C1) (2 cov + C2) / ((mu_x^2 + mu_y^2 + C1) (var_x + var_y + C2)) with
C1 = 0.01^2, C2 = 0.03^2, in fp32; out (B, C, H - WIN + 1, W - WIN + 1) fp16.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
CHANNELS = 3
HEIGHT = 32
WIDTH = 50
WIN = 7
C1 = 0.01**2
C2 = 0.03**2


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        ft = torch.promote_types(x.dtype, torch.float32)
        xf, yf = x.to(ft), y.to(ft)
        mx = F.avg_pool2d(xf, WIN, stride=1)
        my = F.avg_pool2d(yf, WIN, stride=1)
        vx = F.avg_pool2d(xf * xf, WIN, stride=1) - mx * mx
        vy = F.avg_pool2d(yf * yf, WIN, stride=1) - my * my
        cxy = F.avg_pool2d(xf * yf, WIN, stride=1) - mx * my
        num = (2 * mx * my + C1) * (2 * cxy + C2)
        den = (mx * mx + my * my + C1) * (vx + vy + C2)
        return (num / den).to(x.dtype)


def get_inputs():
    x = torch.rand(BATCH, CHANNELS, HEIGHT, WIDTH)
    y = torch.empty_like(x)
    for b in range(BATCH):
        for c in range(CHANNELS):
            kind = (b * CHANNELS + c) % 6
            xp = x[b, c]
            if kind == 0:
                yp = xp.clone()  # identical: ssim 1
            elif kind == 1:
                yp = xp + 0.05 * torch.randn_like(xp)
            elif kind == 2:
                xp = 0.7 + 0.01 * torch.randn_like(xp)  # low contrast, bright
                yp = xp + 0.005 * torch.randn_like(xp)
            elif kind == 3:
                yp = 1.0 - xp  # inverted: negative structure term
            elif kind == 4:
                yp = torch.rand_like(xp)
                xp[:10, :15] = 0.0  # a black patch in both images
                yp[:10, :15] = 0.0
            else:
                ramp = torch.linspace(0, 1, WIDTH)[None, :].expand_as(xp)
                xp = 0.8 * ramp + 0.2 * xp
                yp = torch.round(xp * 8) / 8  # quantised copy
            x[b, c] = xp.clamp(0, 1)
            y[b, c] = yp.clamp(0, 1)
    return [x.half(), y.half()]


def get_init_inputs():
    return []
