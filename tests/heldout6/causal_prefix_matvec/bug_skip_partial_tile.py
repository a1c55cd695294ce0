"""Triton causal matrix-vector product, one program per (BI-row tile, batch).

A program owns rows i0 .. i0 + BI - 1 of one batch and walks the columns in BJ-wide chunks up to
the end of its diagonal block (later columns are all above the diagonal). Each chunk loads the
(BI, BJ) tile of A keeping only j <= i (and in-range rows), converts to fp32, multiplies by the
matching chunk of v and adds the row sums into an fp32 accumulator; the result is stored as fp32.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def causal_matvec_kernel(
    a_ptr,
    v_ptr,
    out_ptr,
    T,
    stride_ab,
    stride_ai,
    stride_aj,
    stride_vb,
    stride_ob,
    BI: tl.constexpr,
    BJ: tl.constexpr,
):
    pid = tl.program_id(0)
    b = tl.program_id(1)
    i0 = pid * BI
    rows = i0 + tl.arange(0, BI)
    if i0 + BI > T:
        return
    rmask = rows < T
    a_base = a_ptr + b * stride_ab
    acc = tl.zeros((BI,), dtype=tl.float32)
    for j0 in range(0, i0 + BI, BJ):
        cols = j0 + tl.arange(0, BJ)
        cmask = cols < T
        keep = (cols[None, :] <= rows[:, None]) & rmask[:, None] & cmask[None, :]
        a = tl.load(a_base + rows[:, None] * stride_ai + cols[None, :] * stride_aj, mask=keep, other=0.0).to(tl.float32)
        vv = tl.load(v_ptr + b * stride_vb + cols, mask=cmask, other=0.0).to(tl.float32)
        acc += tl.sum(a * vv[None, :], axis=1)
    tl.store(out_ptr + b * stride_ob + rows, acc, mask=rmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        B, T, _ = A.shape
        out = torch.empty((B, T), device=A.device, dtype=torch.float32)
        BI, BJ = 16, 32
        grid = (triton.cdiv(T, BI), B)
        causal_matvec_kernel[grid](
            A,
            v,
            out,
            T,
            A.stride(0),
            A.stride(1),
            A.stride(2),
            v.stride(0),
            out.stride(0),
            BI=BI,
            BJ=BJ,
        )
        return out
