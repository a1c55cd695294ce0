"""Triton OHLCV bars. One program per (BLOCK_B = 16 bars, series) tile (NB 63 bars: tail 15), series on grid axis
1: the (BLOCK_B, BAR) tick tile loaded through the price row stride passed from the host (a column slice of a wider
buffer) with lanes t >= T masked; open and close loaded at the first tick and at min(first + BAR, T) - 1, high / low
as masked max / min over the bar, the int64 volume sum, sum(price volume) in fp32 and the VWAP (the close where the
volume is 0); three outputs.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ohlcv_kernel(
    p_ptr, v_ptr, ohlc_ptr, vol_ptr, vwap_ptr, T, NB, sp_s, sv_s, BAR: tl.constexpr, BLOCK_B: tl.constexpr
):
    s = tl.program_id(1)
    j = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    k = tl.arange(0, BAR)
    jm = j < NB
    t = j[:, None] * BAR + k[None, :]
    m = jm[:, None] & (t < T)
    p = tl.load(p_ptr + s * sp_s + t, mask=m, other=0.0)
    v = tl.load(v_ptr + s * sv_s + t, mask=m, other=0)
    first = j * BAR
    last = tl.minimum(first + BAR, T) - 1
    o = tl.load(p_ptr + s * sp_s + first, mask=jm, other=0.0)
    c = tl.load(p_ptr + s * sp_s + last, mask=jm, other=0.0)
    hi = tl.max(tl.where(m, p, float("-inf")), axis=1)
    lo = tl.min(tl.where(m, p, float("inf")), axis=1)
    vs = tl.sum(v, axis=1)
    pv = tl.sum(p * v.to(tl.float32), axis=1)
    vw = tl.where(vs > 0, pv / vs.to(tl.float32), o)
    ob = ohlc_ptr + (s * NB + j) * 4
    tl.store(ob + 0, o, mask=jm)
    tl.store(ob + 1, hi, mask=jm)
    tl.store(ob + 2, lo, mask=jm)
    tl.store(ob + 3, c, mask=jm)
    tl.store(vol_ptr + s * NB + j, vs, mask=jm)
    tl.store(vwap_ptr + s * NB + j, vw, mask=jm)


class ModelNew(nn.Module):
    def __init__(self, bar):
        super().__init__()
        self.bar = bar

    def forward(self, price, volume):
        S, T = price.shape
        NB = triton.cdiv(T, self.bar)
        ohlc = torch.empty(S, NB, 4, dtype=torch.float32, device=price.device)
        vol = torch.empty(S, NB, dtype=torch.int64, device=price.device)
        vwap = torch.empty(S, NB, dtype=torch.float32, device=price.device)
        BLOCK_B = 16
        ohlcv_kernel[(triton.cdiv(NB, BLOCK_B), S)](
            price,
            volume,
            ohlc,
            vol,
            vwap,
            T,
            NB,
            price.stride(0),
            volume.stride(0),
            BAR=self.bar,
            BLOCK_B=BLOCK_B,
        )
        return ohlc, vol, vwap
