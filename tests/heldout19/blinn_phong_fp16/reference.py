"""Blinn-Phong shading of a G-buffer (deferred shading), one directional light per image.

normals (B, H, W, 3) fp16, not unit length (about 10% of the pixels are background with a zero
normal), albedo (B, H, W, 3) fp16 in [0, 1], light (B, 3) fp32 (pointing towards the light, z > 0).
n = normalize(normal), l = normalize(light), h = normalize(l + v) with the viewer v = (0, 0, 1);
normalize(u) = u / max(|u|, 1e-6) (F.normalize; 0 stays 0). diffuse = max(n . l, 0),
spec = max(n . h, 0)^32, out = albedo (0.1 + diffuse) + 0.5 spec, fp32 math, (B, H, W, 3) fp16.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
HEIGHT = 37
WIDTH = 53
AMBIENT = 0.1
SHININESS = 32.0
SPECULAR = 0.5


class Model(nn.Module):
    def __init__(self, ambient, shininess, specular):
        super().__init__()
        self.ambient = ambient
        self.shininess = shininess
        self.specular = specular

    def forward(self, normals, albedo, light):
        wide = torch.promote_types(normals.dtype, torch.float32)
        n = F.normalize(normals.to(wide), dim=-1, eps=1e-6)
        ld = F.normalize(light.to(wide), dim=-1, eps=1e-6)
        view = torch.tensor([0.0, 0.0, 1.0], dtype=wide, device=light.device)
        h = F.normalize(ld + view, dim=-1, eps=1e-6)
        ld = ld[:, None, None, :]
        h = h[:, None, None, :]
        diffuse = torch.clamp((n * ld).sum(dim=-1), min=0.0)
        spec = torch.clamp((n * h).sum(dim=-1), min=0.0) ** self.shininess
        out = albedo.to(wide) * (self.ambient + diffuse)[..., None] + self.specular * spec[..., None]
        return out.to(normals.dtype)


def get_inputs():
    normals = torch.randn(BATCH, HEIGHT, WIDTH, 3)
    normals[..., 2] = normals[..., 2].abs() + 0.3
    normals = normals * (0.5 + torch.rand(BATCH, HEIGHT, WIDTH, 1))
    background = torch.rand(BATCH, HEIGHT, WIDTH, 1) < 0.1
    normals = torch.where(background, 0.0, normals)
    albedo = torch.rand(BATCH, HEIGHT, WIDTH, 3)
    light = torch.randn(BATCH, 3)
    light[:, 2] = light[:, 2].abs() + 0.5
    return [normals.half(), albedo.half(), light]


def get_init_inputs():
    return [AMBIENT, SHININESS, SPECULAR]
