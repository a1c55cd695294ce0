"""One step of Conway's Game of Life on toroidal boards (the cellular-automaton update used in
simulation and as a GPU stencil benchmark).

board (B, H, W) uint8 cells 0 / 1; neighbours are the 8 surrounding cells with wrap-around at the
edges; a live cell survives with 2 or 3 live neighbours, a dead one is born with exactly 3.
out (B, H, W) uint8 (exact).
"""

import torch
import torch.nn as nn

BOARDS = 4
HEIGHT = 50
WIDTH = 90


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, board):
        b = board.to(torch.int32)
        n = torch.zeros_like(b)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy != 0 or dx != 0:
                    n += torch.roll(b, shifts=(dy, dx), dims=(1, 2))
        alive = (n == 3) | ((b == 1) & (n == 2))
        return alive.to(torch.uint8)


def get_inputs():
    board = (torch.rand(BOARDS, HEIGHT, WIDTH) < 0.35).to(torch.uint8)
    board[1] = 0
    glider = torch.tensor([[0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=torch.uint8)
    board[1, :3, -3:] = glider  # a glider on the corner: its neighbourhoods wrap both ways
    board[1, HEIGHT // 2, :] = 1  # a full row (wraps left-right)
    board[1, :, WIDTH // 2] = 1  # a full column (wraps top-bottom)
    board[2] = 1  # a full board: every cell dies
    board[3, ::2, ::3] = 1  # a lattice with a dense right edge
    board[3, :, -1] = 1
    return [board]


def get_init_inputs():
    return []
