"""suggest_fix patches that must hold on kernels nobody has written yet: a loaded index is never
upcast, a half-masked 2-D access gets the bound of every dimension, a t * log(t) term keeps the
xlogy convention at t == 0, and a kernel writing through an input's pointer gets a copy of it.
Each kernel is run, diagnosed and patched on the cpu backend, and the patch verified by re-running."""

from __future__ import annotations

from tests.test_patches_loops import _verified_fix
from tools.fixes.registry import patch

BAG_SUM_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, table, idx):
        return table.float()[idx.long()].sum(dim=1).to(table.dtype)


def get_inputs():
    return [torch.randn(50, 96).to(torch.float16) * 4, torch.randint(0, 50, (7, 64), dtype=torch.int32)]


def get_init_inputs():
    return []
"""

#: Bags of token ids, each summing its tokens' table rows in an fp16 accumulator. The token id is
#: a load too: it addresses the table, so it must stay an integer when the data is upcast.
BAG_SUM_FP16 = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bag_sum_kernel(t_ptr, idx_ptr, out_ptr, L, D, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    keep = cols < D
    acc = tl.zeros((BLOCK_D,), dtype=tl.float16)
    for j in range(0, L):
        tok = tl.load(idx_ptr + bag * L + j)
        vec = tl.load(t_ptr + tok * D + cols, mask=keep, other=0.0)
        acc += vec
    tl.store(out_ptr + bag * D + cols, acc.to(out_ptr.dtype.element_ty), mask=keep)


class ModelNew(nn.Module):
    def forward(self, table, idx):
        out = torch.empty((idx.shape[0], table.shape[1]), device=table.device, dtype=table.dtype)
        bag_sum_kernel[(idx.shape[0],)](table, idx, out, idx.shape[1], table.shape[1], BLOCK_D=128)
        return out
"""


def test_a_loaded_index_is_never_upcast_with_the_data():
    fix = _verified_fix(BAG_SUM_REFERENCE, BAG_SUM_FP16, "fp32_accumulator")
    assert "tok = tl.load(idx_ptr + bag * L + j)\n" in fix.patched_source
    assert "vec = tl.load(t_ptr + tok * D + cols, mask=keep, other=0.0).to(tl.float32)" in fix.patched_source
    assert fix.verified, fix.verification


def test_an_index_that_only_bounds_a_mask_or_a_loop_stays_an_integer():
    # the segment's length is loaded and bounds the loop; its start is loaded and feeds the mask
    source = BAG_SUM_FP16.replace(
        "for j in range(0, L):\n        tok = tl.load(idx_ptr + bag * L + j)",
        "n = tl.load(idx_ptr + bag)\n    for j in range(0, n):\n        tok = tl.load(idx_ptr + bag * L + j)",
    )
    patched = patch("fp32_accumulator", source)
    assert "n = tl.load(idx_ptr + bag)\n" in patched and "tok = tl.load(idx_ptr + bag * L + j)\n" in patched
