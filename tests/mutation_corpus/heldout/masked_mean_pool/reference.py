"""Masked mean pooling over the sequence: fp32 hidden states (8, 77, 96), int64 lengths; mean of the first lengths[b] tokens."""

import torch
import torch.nn as nn

BATCH, SEQ, DIM = 8, 77, 96


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, hidden: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(hidden.shape[1], device=hidden.device)
        mask = (positions[None, :] < lengths[:, None]).to(hidden.dtype)
        summed = (hidden * mask[:, :, None]).sum(dim=1)
        return summed / mask.sum(dim=1, keepdim=True).clamp(min=1.0)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM), torch.randint(1, SEQ + 1, (BATCH,))]


def get_init_inputs():
    return []
