"""Int4 weight dequantisation: two 4-bit codes per byte, per-group fp16 scales, zero point 8.

packed is (100, 500) uint8: byte j of a row holds column 2j in its low nibble and column 2j+1 in
its high nibble. scales is (100, 8) fp16, one per group of 128 columns (the last group is short:
1000 columns). The output is (100, 1000) fp16: (code - 8) * scale.
"""

import torch
import torch.nn as nn

M, K, GROUP = 100, 1000, 128


class Model(nn.Module):
    def __init__(self, group_size: int):
        super().__init__()
        self.group_size = group_size

    def forward(self, packed: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
        lo = (packed & 0xF).to(torch.int16)
        hi = (packed >> 4).to(torch.int16)
        codes = torch.stack([lo, hi], dim=-1).reshape(packed.shape[0], -1)
        cols = torch.arange(codes.shape[1], device=packed.device)
        s = scales[:, cols // self.group_size]
        return (codes - 8).to(scales.dtype) * s


def get_inputs():
    packed = torch.randint(0, 256, (M, K // 2), dtype=torch.uint8)
    scales = (torch.rand(M, (K + GROUP - 1) // GROUP) * 0.02 + 0.001).to(torch.float16)
    return [packed, scales]


def get_init_inputs():
    return [GROUP]
