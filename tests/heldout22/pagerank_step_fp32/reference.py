"""One PageRank power-iteration step on a directed graph stored as CSR of the incoming edges
(the pull formulation used by graph analytics libraries).

rank (N,) fp32; indptr (N + 1,) int64 and src (E,) int64: the in-edges of node i are
src[indptr[i] : indptr[i + 1]] (empty for some nodes); outdeg (N,) int64 the out-degrees (0 for
dangling nodes). With damping d (constructor):
r'_i = (1 - d) / N + d (sum_{j -> i} r_j / outdeg_j + D / N), D = sum of r over the dangling nodes.
out (N,) fp32.
"""

import torch
import torch.nn as nn

NODES = 300
HUB_IN = 150


class Model(nn.Module):
    def __init__(self, damping):
        super().__init__()
        self.damping = damping

    def forward(self, rank, indptr, src, outdeg):
        N = rank.shape[0]
        contrib = torch.where(outdeg > 0, rank / outdeg.clamp(min=1).to(rank.dtype), torch.zeros_like(rank))
        dst = torch.repeat_interleave(torch.arange(N, device=rank.device), indptr[1:] - indptr[:-1])
        agg = torch.zeros_like(rank).index_add_(0, dst, contrib[src])
        dangling = torch.where(outdeg == 0, rank, torch.zeros_like(rank)).sum()
        d = self.damping
        return (1.0 - d) / N + d * (agg + dangling / N)


def get_inputs():
    indeg = torch.randint(0, 13, (NODES,))
    indeg[::9] = 0  # nodes nobody links to
    indeg[NODES // 2] = HUB_IN  # a hub: several edge chunks
    indptr = torch.zeros(NODES + 1, dtype=torch.int64)
    indptr[1:] = torch.cumsum(indeg, dim=0)
    senders = torch.randperm(NODES)[: NODES * 4 // 5]  # the other fifth are dangling
    src = senders[torch.randint(0, senders.numel(), (int(indptr[-1]),))]
    outdeg = torch.bincount(src, minlength=NODES)
    rank = torch.rand(NODES) + 0.05
    rank = rank / rank.sum()
    return [rank, indptr, src, outdeg]


def get_init_inputs():
    return [0.85]
