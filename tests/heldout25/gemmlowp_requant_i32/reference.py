"""Fixed-point requantisation of int32 GEMM accumulators to int8 (TFLite / gemmlowp
MultiplyByQuantizedMultiplier with a per-channel multiplier): per output channel c a Q31 multiplier
M_c in [2^30, 2^31) and a right shift s_c >= 0;
hi = SaturatingRoundingDoublingHighMul(acc, M_c) = trunc((acc M_c + nudge) / 2^31) in int64 with
nudge = 2^30 if acc M_c >= 0 else 1 - 2^30; r = RoundingDivideByPOT(hi, s_c) = (hi >> s_c) +
(rem > thr) with rem = hi & (2^s_c - 1), thr = (2^s_c - 1) >> 1 plus 1 for negative hi (round half
away from zero); out = clamp(r + zero_point, -128, 127) int8. acc (M, C) int32 is the transpose of a
channel-major (C, M) buffer (a strided view); multiplier, shift (C,) int32; out (M, C) int8.
"""

import torch
import torch.nn as nn

ROWS = 100
CHANNELS = 200


class Model(nn.Module):
    def __init__(self, zero_point):
        super().__init__()
        self.zero_point = zero_point

    def forward(self, acc, multiplier, shift):
        ab = acc.to(torch.int64) * multiplier.to(torch.int64)[None, :]
        nudge = torch.where(ab >= 0, 1 << 30, 1 - (1 << 30))
        hi = torch.div(ab + nudge, 1 << 31, rounding_mode="trunc")
        s = shift.to(torch.int64)[None, :]
        mask = (1 << s) - 1
        rem = hi & mask
        thr = (mask >> 1) + (hi < 0).to(torch.int64)
        r = (hi >> s) + (rem > thr).to(torch.int64)
        return torch.clamp(r + self.zero_point, -128, 127).to(torch.int8)


def get_inputs():
    buf = torch.randint(-(1 << 17), 1 << 17, (CHANNELS, ROWS), dtype=torch.int32)
    buf[:, 0] = torch.iinfo(torch.int32).max  # extreme accumulators: the product needs 62 bits
    buf[:, 1] = torch.iinfo(torch.int32).min
    buf[:, 2] = 0
    buf[:, 3] = -1
    buf[:, 4] = torch.randint(-600, 600, (CHANNELS,), dtype=torch.int32)  # small: rounding decides
    buf[0] = torch.randint(-300, 300, (ROWS,), dtype=torch.int32)
    multiplier = torch.randint(1 << 30, (1 << 31) - 1, (CHANNELS,), dtype=torch.int32)
    multiplier[0] = 1 << 30  # exactly one half
    shift = torch.randint(9, 14, (CHANNELS,), dtype=torch.int32)
    shift[0] = 0  # no shift: hi itself
    shift[1] = 1  # rem in {0, 1}: every odd hi is a tie
    shift[2] = 2
    return [buf.t(), multiplier, shift]


def get_init_inputs():
    return [-5]
