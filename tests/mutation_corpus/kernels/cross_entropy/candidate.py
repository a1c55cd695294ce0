"""Cross-entropy per row: logsumexp(row) - row[target], the logsumexp taken around the row max."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_classes, stride_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_classes
    logits = tl.load(logits_ptr + row * stride_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
    row_max = tl.max(logits, axis=0)
    sum_exp = tl.sum(tl.exp(logits - row_max), axis=0)
    lse = row_max + tl.log(sum_exp)
    target = tl.load(target_ptr + row)
    target_logit = tl.load(logits_ptr + row * stride_row + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - target_logit)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        logits = logits.contiguous()
        n_rows, n_classes = logits.shape
        loss = torch.empty(n_rows, dtype=logits.dtype, device=logits.device)
        BLOCK_SIZE = triton.next_power_of_2(n_classes)
        cross_entropy_kernel[(n_rows,)](logits, target, loss, n_classes, logits.stride(0), BLOCK_SIZE=BLOCK_SIZE)
        return loss
