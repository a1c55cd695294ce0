"""Segment softmax (graph attention, as torch_geometric.utils.softmax with CSR pointers).

scores (E, H) fp32: one row per edge, one column per attention head; edges are grouped by
destination node, node s owning rows offsets[s] .. offsets[s + 1] (int64, S + 1 entries; some
nodes have no edge). out[e, h] = exp(scores[e, h] - max_seg) / sum_seg exp(scores[. , h] - max_seg),
per node and per head. Each node's scores sit around its own offset in [-120, 120), beyond exp's
fp32 range, so the max shift matters.
"""

import torch
import torch.nn as nn

S = 60
H = 4
MAX_DEG = 25


def _offsets():
    deg = torch.randint(0, MAX_DEG + 1, (S,))
    deg[::9] = 0
    deg[4::9] = 1
    return torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(deg, 0)])


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(scores)
        for s in range(offsets.numel() - 1):
            a, b = int(offsets[s]), int(offsets[s + 1])
            if b > a:
                out[a:b] = torch.softmax(scores[a:b], dim=0)
        return out


def get_inputs():
    offsets = _offsets()
    n_edges = int(offsets[-1])
    deg = offsets[1:] - offsets[:-1]
    node_offset = torch.repeat_interleave(torch.empty(S).uniform_(-120.0, 120.0), deg)
    scores = 3.0 * torch.randn(n_edges, H) + node_offset[:, None]
    return [scores, offsets]


def get_init_inputs():
    return []
