"""Triton pre-emphasis + framing + Hamming window: grid (frame blocks, batch), one tile of
BLOCK_F = 16 frames (NF = 46: tail 14) x BLOCK_S = 128 samples per step of a loop over the frame
in chunks (FRAME = 400: tail 16).

Sample s of frame f is t = f HOP + s: x[t] and x[t - 1] are two loads (the second masked to
t >= 1, so y[0] = x[0]), widened to fp32, y = x[t] - 0.97 x[t - 1]; the window
0.54 - 0.46 cos(2 pi s / (FRAME - 1)) is made in the kernel (a `@triton.jit` helper). One rounding
to fp16 at out[b, f, s]; FRAME and HOP come from the constructor, the batch row stride of x from the host.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _hamming(s, FRAME):
    return 0.54 - 0.46 * tl.cos(2.0 * 3.141592653589793 * s.to(tl.float32) / (FRAME - 1))


@triton.jit
def frames_kernel(
    x_ptr,
    out_ptr,
    T,
    NF,
    FRAME,
    HOP,
    stride_x,
    PREEMPH: tl.constexpr,
    BLOCK_F: tl.constexpr,
    BLOCK_S: tl.constexpr,
):
    f = tl.program_id(0) * BLOCK_F + tl.arange(0, BLOCK_F)
    b = tl.program_id(1)
    fm = f < NF
    xb = x_ptr + b * stride_x
    ob = out_ptr + b * NF * FRAME
    lanes = tl.arange(0, BLOCK_S)
    for s0 in range(0, FRAME, BLOCK_S):
        s = s0 + lanes
        m = fm[:, None] & (s[None, :] < FRAME)
        t = f[:, None] * HOP + s[None, :]
        cur = tl.load(xb + t, mask=m, other=0.0).to(tl.float32)
        prev = tl.load(xb + t - 1, mask=m & (t >= 1), other=0.0)
        y = cur - PREEMPH * prev
        w = _hamming(s, FRAME)
        tl.store(ob + f[:, None] * FRAME + s[None, :], (y * w[None, :]).to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self, frame, hop):
        super().__init__()
        self.frame = frame
        self.hop = hop

    def forward(self, x):
        B, T = x.shape
        frame, hop = self.frame, self.hop
        NF = (T - frame) // hop + 1
        out = torch.empty((B, NF, frame), dtype=x.dtype, device=x.device)
        BLOCK_F, BLOCK_S = 16, 128
        grid = (triton.cdiv(NF, BLOCK_F), B)
        frames_kernel[grid](x, out, T, NF, frame, hop, x.stride(0), PREEMPH=0.97, BLOCK_F=BLOCK_F, BLOCK_S=BLOCK_S)
        return out
