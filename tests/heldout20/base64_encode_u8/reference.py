"""Base64 encoding (RFC 4648, standard alphabet, '=' padding) of every row of a byte matrix.

data (R, N) uint8 -> (R, 4 ceil(N / 3)) uint8 ASCII codes. Each group of three bytes is read as a
24-bit big-endian number and split into four 6-bit values (high bits first), mapped through
A-Z a-z 0-9 + /; in the last group, the characters that hold no bit of a real byte are '='
(N = 100: one byte in the last group, so two '='). Rows 0 and 1 are all 0x00 and all 0xFF.
"""

import torch
import torch.nn as nn

ROWS = 45
NBYTES = 100

ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, data):
        R, N = data.shape
        G = (N + 2) // 3
        padded = torch.zeros(R, 3 * G, dtype=torch.int64, device=data.device)
        padded[:, :N] = data.to(torch.int64)
        g = padded.view(R, G, 3)
        v = (g[..., 0] << 16) | (g[..., 1] << 8) | g[..., 2]
        sextets = torch.stack([(v >> s) & 63 for s in (18, 12, 6, 0)], dim=-1).reshape(R, 4 * G)
        alphabet = torch.tensor(list(ALPHABET), dtype=torch.uint8, device=data.device)
        out = alphabet[sextets]
        pos = torch.arange(4 * G, device=data.device)
        first_byte = 3 * (pos // 4) + (6 * (pos % 4)) // 8
        out[:, first_byte >= N] = ord("=")
        return out


def get_inputs():
    data = torch.randint(0, 256, (ROWS, NBYTES), dtype=torch.uint8)
    data[0] = 0
    data[1] = 255
    return [data]


def get_init_inputs():
    return []
