"""Element-wise greatest common divisor of int32 pairs (`torch.gcd`: non-negative, gcd(a, 0) =
|a|, gcd(0, 0) = 0), e.g. for reducing ratios or lattice steps.

a, b (R, C) int32 with |values| < 2^31 - 1 -> out (R, C) int32.
"""

import torch
import torch.nn as nn

ROWS = 45
COLS = 300


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.gcd(a, b)


def get_inputs():
    g = torch.randint(1, 200, (ROWS, COLS))
    a = g * torch.randint(-5000, 5000, (ROWS, COLS))
    b = g * torch.randint(-5000, 5000, (ROWS, COLS))
    fib = [1, 1]
    while len(fib) < 47:
        fib.append(fib[-1] + fib[-2])
    n = min(COLS, 40)
    for k in range(n):  # consecutive Fibonacci numbers: Euclid's worst case (up to 43 steps)
        a[0, k] = fib[45 - k % 12]
        b[0, k] = fib[44 - k % 12] * (1 if k % 2 == 0 else -1)
    a[1, :] = 0  # gcd(0, b) = |b|
    b[2, :] = 0  # gcd(a, 0) = |a|
    a[3, ::2] = 0
    b[3, ::2] = 0  # gcd(0, 0) = 0
    b[4] = a[4]  # equal pairs
    b[5] = -3 * a[5]  # one divides the other
    a[6, :n] = 2147483629  # the largest int32 prime against random values
    a[7, :n] = 2147483646
    b[7, :n] = 1073741823
    return [a.to(torch.int32), b.to(torch.int32)]


def get_init_inputs():
    return []
