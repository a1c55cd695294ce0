"""`wc -lw` of every row of a byte matrix (ASCII text, bytes >= 0x80 counted as word characters).

x (R, N) uint8; out (R, 2) int64 [lines, words]: lines = number of b'\\n' bytes, words = number of maximal
runs of non-whitespace bytes, whitespace as C isspace: 9 .. 13 (\\t \\n \\v \\f \\r) and 32 (space).
"""

import torch
import torch.nn as nn

ROWS = 45
LENGTH = 700

# byte classes drawn for the text, with their weights in percent
_CLASSES = [
    (list(range(97, 123)), 52),  # a-z
    (list(range(65, 91)) + list(range(48, 58)) + [44, 46, 39, 45], 12),  # A-Z, digits, punctuation
    ([32], 20),
    ([10], 4),
    ([9], 3),
    ([13], 3),
    ([11, 12], 1),
    (list(range(128, 256)), 5),
]


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        xi = x.to(torch.int64)
        ws = ((xi >= 9) & (xi <= 13)) | (xi == 32)
        lines = (xi == 10).sum(dim=1)
        prev_ws = torch.cat([torch.ones_like(ws[:, :1]), ws[:, :-1]], dim=1)
        words = (~ws & prev_ws).sum(dim=1)
        return torch.stack([lines, words], dim=1)


def get_inputs():
    weights = torch.tensor([w for _, w in _CLASSES], dtype=torch.float32)
    cls = torch.multinomial(weights, ROWS * LENGTH, replacement=True)
    out = torch.empty(ROWS * LENGTH, dtype=torch.int64)
    for i, (members, _) in enumerate(_CLASSES):
        sel = cls == i
        pick = torch.randint(0, len(members), (int(sel.sum()),))
        out[sel] = torch.tensor(members)[pick]
    x = out.view(ROWS, LENGTH).to(torch.uint8)
    x[0] = 32  # only spaces: no word
    x[1] = ord("x")  # one word over the whole row
    x[2] = 0xFF
    x[3, 0::2] = ord("a")  # "a\na\n..."
    x[3, 1::2] = 10
    return [x]


def get_init_inputs():
    return []
