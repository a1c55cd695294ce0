"""Motif scanning of DNA reads with a position weight matrix on both strands (as in FIMO / MOODS): with codes A 0,
C 1, G 2, T 3 (any other byte, e.g. N, is unknown and scores 0), the forward score of window p is
sum_k pwm[k, code(s[p + k])] and the reverse-complement score sum_k pwm[k, 3 - code(s[p + K - 1 - k])]; best = the
larger of the two per window (P = L - K + 1 windows), and the number of windows per read with best >= THRESH (2.0
from the constructor). Log-odds of a base never seen at a motif position are -inf. Reads (B, L) uint8 ASCII are bytes
4 .. L + 3 of (B, L + 12) records; pwm (K, 4) fp16 (K = 6); two outputs: best (B, P) fp32, count (B,) int64.
"""

import torch
import torch.nn as nn

READS = 40
READ_LEN = 1000


class Model(nn.Module):
    def __init__(self, thresh):
        super().__init__()
        self.thresh = thresh

    def forward(self, seq, pwm):
        K = pwm.shape[0]
        B, L = seq.shape
        P = L - K + 1
        lut = torch.full((256,), -1, dtype=torch.int64, device=seq.device)
        lut[torch.tensor([65, 67, 71, 84], device=seq.device)] = torch.arange(4, device=seq.device)
        code = lut[seq.to(torch.int64)]
        comp = torch.where(code >= 0, 3 - code, -1)
        w = pwm.to(torch.promote_types(pwm.dtype, torch.float32))
        fwd = torch.zeros(B, P, dtype=w.dtype, device=seq.device)
        rev = torch.zeros(B, P, dtype=w.dtype, device=seq.device)
        for k in range(K):
            cf = code[:, k : k + P]
            fwd = fwd + torch.where(cf >= 0, w[k][cf.clamp(min=0)], 0.0)
            cr = comp[:, K - 1 - k : K - 1 - k + P]
            rev = rev + torch.where(cr >= 0, w[k][cr.clamp(min=0)], 0.0)
        best = torch.maximum(fwd, rev)
        return best, (best >= self.thresh).sum(1)


def get_inputs():
    B, L, K = READS, READ_LEN, 6
    alphabet = torch.tensor([65, 67, 71, 84, 78], dtype=torch.uint8)  # A C G T N
    seq = alphabet[torch.multinomial(torch.tensor([0.24, 0.24, 0.24, 0.24, 0.04]), B * L, replacement=True)]
    seq = seq.reshape(B, L)
    pwm = (torch.randn(K, 4) * 1.5).to(torch.float16)
    pwm[0, 0] = float("-inf")  # A never seen at position 0
    pwm[3, 2] = float("-inf")  # G never seen at position 3
    pwm[2] = torch.tensor([-1.0, 2.5, -1.5, 0.5])
    motif = torch.tensor([67, 84, 67, 65, 67, 71], dtype=torch.uint8)  # close to the consensus
    seq[min(1, B - 1), : (L // K) * K] = motif.repeat(L // K)  # a read of motif repeats
    seq[min(2, B - 1)] = 78  # all N: every score 0
    seq[min(3, B - 1), L // 2 :] = 65  # a poly-A half
    seq[B - 1, L - K :] = motif.flip(0)  # the last window: the motif reversed
    buf = torch.full((B, L + 12), 67, dtype=torch.uint8)  # 'C' bytes around the reads
    buf[:, 4 : L + 4] = seq
    return [buf[:, 4 : L + 4], pwm]


def get_init_inputs():
    return [2.0]
