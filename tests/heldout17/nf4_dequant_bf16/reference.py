"""QLoRA / bitsandbytes NF4 blockwise dequantisation (no double quantisation).

packed (ROWS COLS / 2,) uint8: two 4-bit codes per byte, the even element in the high nibble;
absmax (ceil(ROWS COLS / 64),) fp32, one scale per block of 64 consecutive elements of the
flattened weight (10,000 elements: 157 blocks, the last one of 16). out = NF4[code] absmax[i // 64],
reshaped to (ROWS, COLS), bf16 (one rounding).
"""

import torch
import torch.nn as nn

ROWS = 50
COLS = 200
BLOCKSIZE = 64

NF4_CODE = [
    -1.0,
    -0.6961928009986877,
    -0.5250730514526367,
    -0.39491748809814453,
    -0.28444138169288635,
    -0.18477343022823334,
    -0.09105003625154495,
    0.0,
    0.07958029955625534,
    0.16093020141124725,
    0.24611230194568634,
    0.33791524171829224,
    0.44070982251167297,
    0.5626170039176941,
    0.7229568362236023,
    1.0,
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("code", torch.tensor(NF4_CODE, dtype=torch.float32))

    def forward(self, packed, absmax):
        hi = (packed >> 4).long()
        lo = (packed & 0xF).long()
        codes = torch.stack([hi, lo], dim=-1).reshape(-1)
        n = codes.numel()
        scale = absmax.repeat_interleave(BLOCKSIZE)[:n]
        ct = torch.promote_types(absmax.dtype, torch.float32)
        out = self.code.to(device=packed.device, dtype=ct)[codes] * scale.to(ct)
        return out.reshape(ROWS, COLS).to(torch.bfloat16)


def get_inputs():
    n = ROWS * COLS
    packed = torch.randint(0, 256, (n // 2,), dtype=torch.uint8)
    absmax = 0.02 + 0.2 * torch.rand((n + BLOCKSIZE - 1) // BLOCKSIZE)
    return [packed, absmax]


def get_init_inputs():
    return []
