"""RWKV-4 WKV forward (the time-mixing recurrence), numerically stable form.

k, v (B, T, C) fp16 keys / values, with about 2% of the keys spiked to 88..96 (exp(k) overflows
fp32); time_decay, time_first (C,) fp32 module parameters. With w = -exp(time_decay), u = time_first:

    y_t = (sum_{i<t} e^{(t-1-i) w + k_i} v_i + e^{u + k_t} v_t) / (sum_{i<t} e^{(t-1-i) w + k_i} + e^{u + k_t})

evaluated with a running (aa, bb, pp) state whose exponents are shifted by the running maximum pp,
in fp32 (computed in the promoted dtype); fp16 out.
"""

import torch
import torch.nn as nn

BATCH = 2
SEQ = 40
CHANNELS = 72


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.time_decay = nn.Parameter(0.5 * torch.randn(channels, generator=g) - 1.0)
        self.time_first = nn.Parameter(0.5 * torch.randn(channels, generator=g) + 0.3)

    def forward(self, k, v):
        ct = torch.promote_types(k.dtype, torch.float32)
        kf, vf = k.to(ct), v.to(ct)
        w = -torch.exp(self.time_decay.to(ct))
        u = self.time_first.to(ct)
        B, T, C = k.shape
        aa = torch.zeros(B, C, dtype=ct, device=k.device)
        bb = torch.zeros(B, C, dtype=ct, device=k.device)
        pp = torch.full((B, C), -1e38, dtype=ct, device=k.device)
        ys = []
        for t in range(T):
            kk, vv = kf[:, t], vf[:, t]
            ww = u + kk
            p = torch.maximum(pp, ww)
            e1, e2 = torch.exp(pp - p), torch.exp(ww - p)
            ys.append((e1 * aa + e2 * vv) / (e1 * bb + e2))
            ww = w + pp
            p = torch.maximum(ww, kk)
            e1, e2 = torch.exp(ww - p), torch.exp(kk - p)
            aa = e1 * aa + e2 * vv
            bb = e1 * bb + e2
            pp = p
        return torch.stack(ys, dim=1).to(k.dtype)


def get_inputs():
    k = torch.randn(BATCH, SEQ, CHANNELS)
    spikes = torch.rand(BATCH, SEQ, CHANNELS) < 0.02
    k = torch.where(spikes, 88.0 + 8.0 * torch.rand(BATCH, SEQ, CHANNELS), k)
    v = torch.randn(BATCH, SEQ, CHANNELS)
    return [k.half(), v.half()]


def get_init_inputs():
    return [CHANNELS]
