"""Triton Blinn-Phong: one lane per pixel, flat blocks of 512 pixels over B H W (3922: tail 338).

Channels are interleaved (pixel p at 3 p, 3 p + 1, 3 p + 2); image b = p // (H W) selects its
light. A `@triton.jit` helper normalises a 3-vector as u / max(|u|, 1e-6), so the zero normals of
the background give n = 0 (no NaN). The half vector is normalize(l + (0, 0, 1)); max(n . h, 0)^32 is
exp2(32 log2(x)) of the clamped x (log2(0) = -inf gives 0). fp32 math, one rounding to fp16.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def normalize3(x, y, z, EPS: tl.constexpr):
    norm = tl.maximum(tl.sqrt(x * x + y * y + z * z), EPS)
    return x / norm, y / norm, z / norm


@triton.jit
def blinn_phong_kernel(
    n_ptr, a_ptr, l_ptr, out_ptr, P, HW, ambient, shininess, specular, BLOCK: tl.constexpr, EPS: tl.constexpr
):
    pix = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = pix < P
    b = pix // HW
    nx = tl.load(n_ptr + pix * 3 + 0, mask=m, other=0.0).to(tl.float32)
    ny = tl.load(n_ptr + pix * 3 + 1, mask=m, other=0.0).to(tl.float32)
    nz = tl.load(n_ptr + pix * 3 + 2, mask=m, other=0.0).to(tl.float32)
    lx = tl.load(l_ptr + b * 3 + 0, mask=m, other=0.0)
    ly = tl.load(l_ptr + b * 3 + 1, mask=m, other=0.0)
    lz = tl.load(l_ptr + b * 3 + 2, mask=m, other=1.0)
    nx, ny, nz = normalize3(nx, ny, nz, EPS)
    lx, ly, lz = normalize3(lx, ly, lz, EPS)
    hx, hy, hz = normalize3(lx, ly, lz + 1.0, EPS)
    diffuse = tl.maximum(nx * lx + ny * ly + nz * lz, 0.0)
    ndh = tl.maximum(nx * hx + ny * hy + nz * hz, 0.0)
    spec = tl.exp2(shininess * tl.log2(ndh))
    shade = ambient + diffuse
    for c in tl.static_range(3):
        alb = tl.load(a_ptr + pix * 3 + c, mask=m, other=0.0).to(tl.float32)
        tl.store(out_ptr + pix * 3 + c, (alb * shade + specular * spec).to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self, ambient, shininess, specular):
        super().__init__()
        self.ambient = ambient
        self.shininess = shininess
        self.specular = specular

    def forward(self, normals, albedo, light):
        normals, albedo, light = normals.contiguous(), albedo.contiguous(), light.contiguous()
        B, H, W, _ = normals.shape
        out = torch.empty_like(normals)
        P = B * H * W
        BLOCK = 512
        grid = (triton.cdiv(P, BLOCK),)
        blinn_phong_kernel[grid](
            normals,
            albedo,
            light,
            out,
            P,
            H * W,
            self.ambient,
            self.shininess,
            self.specular,
            BLOCK=BLOCK,
            EPS=1e-6,
        )
        return out
