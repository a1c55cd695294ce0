"""EmbeddingBag with mode="mean" (bags given by offsets), in bfloat16.

weight is a (NUM_EMBEDDINGS, DIM) bf16 table, indices a flat (NUM_INDICES,) int64 list and
offsets (NUM_BAGS,) int64 the sorted start of each bag in it: bag b is
indices[offsets[b] : offsets[b + 1]], the last one running to the end of indices. Bag 5 is
always empty (its mean is 0, as torch defines it). out[b] = mean of weight[i] over the bag's i,
a (NUM_BAGS, DIM) bf16 tensor.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_EMBEDDINGS = 500
DIM = 72
NUM_INDICES = 400
NUM_BAGS = 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return F.embedding_bag(indices, weight, offsets, mode="mean")


def get_inputs():
    weight = torch.randn(NUM_EMBEDDINGS, DIM, dtype=torch.bfloat16)
    indices = torch.randint(0, NUM_EMBEDDINGS, (NUM_INDICES,))
    cuts = torch.sort(torch.randint(0, NUM_INDICES, (NUM_BAGS - 1,))).values
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), cuts])
    offsets[6] = offsets[5]
    return [weight, indices, offsets]


def get_init_inputs():
    return []
