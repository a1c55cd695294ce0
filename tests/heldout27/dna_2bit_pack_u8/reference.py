"""UCSC .2bit packing of sequencing reads: every base byte is upper-cased (b & 0xDF: soft-masked lowercase bases
count as their base), coded T = 0, C = 1, A = 2, G = 3 (N and any other byte as 0, like T; the .2bit format keeps N
runs in a separate block list), four bases per byte with the first base in the two most significant bits, the last
byte of a read padded with 0 codes. Reads (R, L) uint8 ASCII are columns 6 .. L + 5 of an (R, L + 10) record buffer
(a header before, a quality / newline tail after). Three outputs: packed (R, ceil(L / 4)) uint8, the N count (R,)
int32 and the G + C count (R,) int32.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

READS = 70
LENGTH = 501


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, seq):
        R, L = seq.shape
        u = (seq & 0xDF).to(torch.int32)
        code = torch.zeros_like(u)
        code[u == ord("C")] = 1
        code[u == ord("A")] = 2
        code[u == ord("G")] = 3
        P = (L + 3) // 4
        code = F.pad(code, (0, 4 * P - L)).view(R, P, 4)
        packed = (code[..., 0] << 6) | (code[..., 1] << 4) | (code[..., 2] << 2) | code[..., 3]
        n = (u == ord("N")).sum(1, dtype=torch.int32)
        gc = ((u == ord("C")) | (u == ord("G"))).sum(1, dtype=torch.int32)
        return packed.to(torch.uint8), n, gc


def get_inputs():
    R, L = READS, LENGTH
    alphabet = torch.tensor([ord(ch) for ch in "ACGTACGTACGTacgtNn"], dtype=torch.uint8)
    seq = alphabet[torch.randint(0, len(alphabet), (R, L))]
    seq[1] = ord("N")  # an all-N read
    seq[2] = ord("n")  # soft-masked N only
    seq[3] = alphabet[torch.randint(12, 16, (L,))]  # a fully soft-masked (lowercase) read
    seq[4] = ord("T")  # all code 0
    seq[5] = ord("G")  # all code 3: every packed byte 0xFF except the padded last one
    seq[6, L // 2 :] = ord("A")
    buf = torch.full((R, L + 10), ord("G"), dtype=torch.uint8)  # the tail holds quality bytes read as G if overrun
    buf[:, :6] = ord("@")
    buf[:, 6 : L + 6] = seq
    return [buf[:, 6 : L + 6]]


def get_init_inputs():
    return []
