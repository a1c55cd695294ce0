"""Row-wise max with its index (greedy decoding over log-probabilities).

fp32 log-probs of 300 rows x 777 vocabulary entries: every value is negative, and 777 is not a
multiple of the 256-wide column block, so the last block of each row has 247 masked lanes.
Outputs: the max of each row (fp32) and the index of its first occurrence (int64).
"""

import torch
import torch.nn as nn

ROWS, VOCAB = 300, 777


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logprobs: torch.Tensor):
        values, indices = torch.max(logprobs, dim=1)
        return values, indices


def get_inputs():
    logits = 3.0 * torch.randn(ROWS, VOCAB)
    return [torch.log_softmax(logits, dim=1)]


def get_init_inputs():
    return []
