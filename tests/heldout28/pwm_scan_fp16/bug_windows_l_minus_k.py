"""Triton two-strand PWM scan. One program per (BLOCK_B = 8 reads, BLOCK_P = 128 windows) tile (B 40; P 995: tail
99), windows on grid axis 0 and reads on grid axis 1: a static loop over the K motif positions loads the base of the
forward window (p + k) and of the reverse-complement window (p + K - 1 - k) through the read stride passed from the
host (a window of a record buffer), maps ASCII to codes (-1 for unknown bytes), gathers the fp16 log-odds at the
clamped code (the complement 3 - code on the reverse strand), adds them where the code is known in fp32
accumulators, takes the larger strand score, and adds each tile's per-read count of best >= THRESH to an int64
counter with an atomic add; two outputs.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def base_code(s):
    return tl.where(s == 65, 0, tl.where(s == 67, 1, tl.where(s == 71, 2, tl.where(s == 84, 3, -1))))


@triton.jit
def pwm_scan_kernel(
    s_ptr, w_ptr, best_ptr, cnt_ptr, B, P, s_read, thresh, K: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_P: tl.constexpr
):
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    b = tl.program_id(1) * BLOCK_B + tl.arange(0, BLOCK_B)
    bm = b < B
    m = bm[:, None] & (p < P)[None, :]
    row = s_ptr + b[:, None] * s_read
    acc_f = tl.zeros((BLOCK_B, BLOCK_P), dtype=tl.float32)
    acc_r = tl.zeros((BLOCK_B, BLOCK_P), dtype=tl.float32)
    for k in tl.static_range(K):
        cf = base_code(tl.load(row + p[None, :] + k, mask=m, other=78))
        vf = tl.load(w_ptr + k * 4 + tl.maximum(cf, 0), mask=m, other=0.0)
        acc_f += tl.where(cf >= 0, vf, 0.0)
        c = base_code(tl.load(row + p[None, :] + (K - 1 - k), mask=m, other=78))
        cr = tl.where(c >= 0, 3 - c, -1)
        vr = tl.load(w_ptr + k * 4 + tl.maximum(cr, 0), mask=m, other=0.0)
        acc_r += tl.where(cr >= 0, vr, 0.0)
    best = tl.maximum(acc_f, acc_r)
    tl.store(best_ptr + b[:, None] * P + p[None, :], best, mask=m)
    hits = tl.sum(((best >= thresh) & m).to(tl.int64), axis=1)
    tl.atomic_add(cnt_ptr + b, hits, mask=bm)


class ModelNew(nn.Module):
    def __init__(self, thresh):
        super().__init__()
        self.thresh = thresh

    def forward(self, seq, pwm):
        B, L = seq.shape
        K = pwm.shape[0]
        P = L - K
        best = torch.empty(B, P, dtype=torch.float32, device=seq.device)
        cnt = torch.zeros(B, dtype=torch.int64, device=seq.device)
        BLOCK_B, BLOCK_P = 8, 128
        pwm_scan_kernel[(triton.cdiv(P, BLOCK_P), triton.cdiv(B, BLOCK_B))](
            seq,
            pwm,
            best,
            cnt,
            B,
            P,
            seq.stride(0),
            self.thresh,
            K=K,
            BLOCK_B=BLOCK_B,
            BLOCK_P=BLOCK_P,
        )
        return best, cnt
