"""Triton linear recurrence as a parallel scan: one program per BLOCK_R = 8 rows (R = 30: tail 6),
a loop over time in chunks of BLOCK_T = 128 steps (T = 600: tail 88).

Each step is the affine map h -> a h + b; a chunk's maps are composed by `tl.associative_scan`
along time with (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2) (a `@triton.jit` combine), giving
h_t = A_t carry + B_t from the state carried in from the previous chunk (h0 for the first). The
inputs are widened to fp32 and read through the strides passed from the host; the padding steps
are the identity map (a = 1, b = 0), so the chunk's last lane holds its last state, the next carry.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _compose(a1, b1, a2, b2):
    return a1 * a2, a1 * b2 + b1


@triton.jit
def recurrence_kernel(
    a_ptr,
    b_ptr,
    h0_ptr,
    out_ptr,
    R,
    T,
    sa_r,
    sa_t,
    sb_r,
    sb_t,
    BLOCK_R: tl.constexpr,
    BLOCK_T: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    rm = rows < R
    cols = tl.arange(0, BLOCK_T)
    carry = tl.load(h0_ptr + rows, mask=rm, other=0.0).to(tl.float32)
    for t0 in range(0, T, BLOCK_T):
        t = t0 + cols
        m = rm[:, None] & (t[None, :] < T)
        a = tl.load(a_ptr + rows[:, None] * sa_r + t[None, :] * sa_t, mask=m, other=1.0).to(tl.float32)
        b = tl.load(b_ptr + rows[:, None] * sb_r + t[None, :] * sb_t, mask=m, other=0.0).to(tl.float32)
        A, Bc = tl.associative_scan((a, b), 1, _compose)
        h = A * carry[:, None] + Bc
        tl.store(out_ptr + rows[:, None] * T + t[None, :], h, mask=m)
        carry = tl.sum(tl.where(cols[None, :] == BLOCK_T - 1, h, 0.0), axis=1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, h0):
        h0 = h0.contiguous()
        R, T = a.shape
        out = torch.empty((R, T), dtype=torch.float32, device=a.device)
        BLOCK_R, BLOCK_T = 8, 128
        grid = (triton.cdiv(R, BLOCK_R),)
        recurrence_kernel[grid](
            a, b, h0, out, R, T, a.stride(0), a.stride(1), b.stride(0), b.stride(1), BLOCK_R=BLOCK_R, BLOCK_T=BLOCK_T
        )
        return out
