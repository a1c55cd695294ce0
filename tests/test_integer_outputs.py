"""Integer outputs (indices) wrong by a structure of their own, and zeros the kernel computed:
a row max + argmax over blocks of 32 columns of all-negative rows."""

from __future__ import annotations

import pytest

from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest

REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.max(x, dim=1)


def get_inputs():
    return [-torch.rand(20, 90) - 0.1]


def get_init_inputs():
    return []
"""

CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_best_kernel(x_ptr, v_ptr, i_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    best = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    where = tl.zeros((BLOCK,), dtype=tl.int32)
    for start in range(0, n, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=float("-inf"))
        better = x > best
        best = tl.where(better, x, best)
        where = tl.where(better, cols, where)
    top = tl.max(best, axis=0)
    first = tl.min(tl.where(best == top, where, 1 << 30), axis=0)
    tl.store(v_ptr + row, top)
    tl.store(i_ptr + row, first.to(tl.int64))


class ModelNew(nn.Module):
    def forward(self, x):
        rows, n = x.shape
        v = torch.empty(rows, device=x.device, dtype=x.dtype)
        i = torch.empty(rows, device=x.device, dtype=torch.int64)
        row_best_kernel[(rows,)](x, v, i, n, x.stride(0), BLOCK=32)
        return v, i
"""

BUGS = {
    # the padding lanes (0.0) beat every negative value: values 0, indices past the row
    "pad_zero": (CANDIDATE.replace('other=float("-inf")', "other=0.0"), "boundary_mask_error", "outside 0..89"),
    # the lane within the block is recorded, not the column: wrong by multiples of 32
    "lane_index": (CANDIDATE.replace("better, cols, where", "better, lanes, where"), "formula_error", "multiple of 32"),
}


def test_correct_argmax_passes_without_diagnosis():
    run = run_accuracy(RunAccuracyRequest(reference=REFERENCE, candidate=CANDIDATE, backend="cpu", num_seeds=2))
    assert run.verdict == "pass" and explain_failure(ExplainRequest(run_id=run.run_id)).diagnoses == []


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_wrong_indices_are_named_by_their_structure(bug):
    candidate, pattern, words = BUGS[bug]
    run = run_accuracy(RunAccuracyRequest(reference=REFERENCE, candidate=candidate, backend="cpu", num_seeds=2))
    assert run.verdict == "fail"
    explained = explain_failure(ExplainRequest(run_id=run.run_id))
    primary = next(d for d in explained.diagnoses if d.tested != "refuted")
    assert primary.pattern == pattern, primary
    assert any(d.pattern == pattern and words in d.summary for d in explained.diagnoses), explained.diagnoses
    # zeros the kernel computed (its outputs are poisoned torch.empty) are not "never written"
    assert not any(d.pattern == "all_zero_output" for d in explained.diagnoses)


CHECKSUM_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return (x.to(torch.int64) * torch.arange(1, x.shape[1] + 1)).sum(1) ^ 0xFFFF


def get_inputs():
    return [torch.randint(0, 256, (40, 33), dtype=torch.uint8)]


def get_init_inputs():
    return []
"""

CHECKSUM = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def checksum_kernel(x_ptr, out_ptr, L, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * L + cols, mask=cols < L, other=0).to(tl.int64)
    tl.store(out_ptr + row, tl.sum(x * (cols + 1), axis=0) ^ 0xFFFF)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], dtype=torch.int64, device=x.device)
        checksum_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=64)
        return out
"""


def test_integers_wrong_by_one_xor_are_the_golden_with_those_bits_flipped():
    assert "^ 0xFFFF)" in CHECKSUM
    good = run_accuracy(RunAccuracyRequest(reference=CHECKSUM_REFERENCE, candidate=CHECKSUM, backend="cpu"))
    assert good.verdict == "pass", good.summary
    bug = CHECKSUM.replace(" ^ 0xFFFF)", ")")
    run = run_accuracy(RunAccuracyRequest(reference=CHECKSUM_REFERENCE, candidate=bug, backend="cpu", num_seeds=2))
    assert run.verdict == "fail"
    explained = explain_failure(ExplainRequest(run_id=run.run_id, search=False))
    primary = next(d for d in explained.diagnoses if d.tested != "refuted")
    assert primary.pattern == "formula_error" and primary.evidence.get("xor") == 0xFFFF, primary
    assert "the golden XOR 0xffff" in primary.summary, primary.summary


def test_integers_wrong_by_multiples_of_a_modulus_the_golden_stays_below_lack_that_reduction():
    """A sum of squares mod 10007 whose kernel never reduces: each wrong value is congruent to the golden."""
    reference = CHECKSUM_REFERENCE.replace(
        "(x.to(torch.int64) * torch.arange(1, x.shape[1] + 1)).sum(1) ^ 0xFFFF",
        "((x.to(torch.int64) * torch.arange(1, x.shape[1] + 1)) ** 2).sum(1) % 10007",
    )
    unreduced = CHECKSUM.replace(
        "tl.sum(x * (cols + 1), axis=0) ^ 0xFFFF", "tl.sum(x * (cols + 1) * x * (cols + 1), axis=0)"
    )
    reduced = unreduced.replace("axis=0))", "axis=0) % 10007)")
    assert "** 2).sum(1) % 10007" in reference and "axis=0) % 10007)" in reduced
    good = run_accuracy(RunAccuracyRequest(reference=reference, candidate=reduced, backend="cpu"))
    assert good.verdict == "pass", good.summary
    run = run_accuracy(RunAccuracyRequest(reference=reference, candidate=unreduced, backend="cpu", num_seeds=2))
    assert run.verdict == "fail"
    explained = explain_failure(ExplainRequest(run_id=run.run_id, search=False))
    primary = next(d for d in explained.diagnoses if d.tested != "refuted")
    assert primary.pattern == "formula_error" and primary.evidence.get("modulus") == 10007, primary
    assert "a reduction `% 10007` left out" in primary.summary, primary.summary
