"""Triton overlap-add with envelope normalisation: one program per BLOCK_T = 128 output samples of
one signal (length (F - 1) hop + N = 688: tail 48), signals on grid axis 1. Sample t is covered by
the frames f = t // hop - k for k = 0 .. N / hop - 1 (a static loop; N and hop constexprs from the
constructor) that exist (0 <= f < F), at tap n = t - f hop; each frame sample is loaded through the
signal / frame / tap strides passed from the host (the frames are a transposed view), widened to
fp32 and weighted by the window, the squared window summed into the envelope, and y / env stored
where the envelope exceeds 1e-11 (0 elsewhere).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ola_kernel(
    fr_ptr, w_ptr, out_ptr, F, L, s_b, s_f, s_n, so_b, HOP: tl.constexpr, NFFT: tl.constexpr, BLOCK_T: tl.constexpr
):
    b = tl.program_id(1)
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    tm = t < L
    acc = tl.zeros([BLOCK_T], dtype=tl.float32)
    env = tl.zeros([BLOCK_T], dtype=tl.float32)
    f_last = t // HOP
    for k in tl.static_range(NFFT // HOP):
        f = f_last - k
        n = t - f * HOP
        ok = tm & (f >= 0) & (f < F)
        w = tl.load(w_ptr + n, mask=ok, other=0.0)
        x = tl.load(fr_ptr + b * s_b + f * s_f + n * s_n, mask=ok, other=0.0).to(tl.float32)
        acc += x * w
        env += w * w
    res = tl.where(env > 1e-11, acc / env, 0.0)
    tl.store(out_ptr + b * so_b + t, res, mask=tm)


class ModelNew(nn.Module):
    def __init__(self, n_fft, hop):
        super().__init__()
        self.n_fft = n_fft
        self.hop = hop

    def forward(self, frames, window):
        B, nf, n = frames.shape
        length = (nf - 1) * self.hop + n
        out = torch.empty(B, length, dtype=torch.float32, device=frames.device)
        BLOCK_T = 128
        grid = (triton.cdiv(length, BLOCK_T), B)
        ola_kernel[grid](
            frames,
            window,
            out,
            nf,
            length,
            frames.stride(0),
            frames.stride(2),
            frames.stride(2),
            out.stride(0),
            HOP=self.hop,
            NFFT=self.n_fft,
            BLOCK_T=BLOCK_T,
        )
        return out
