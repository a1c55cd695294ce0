"""Outputs that legitimately hold -inf (a causal mask): the detectors compare on the finite
positions, treat matching infinities as equal and name an Inf mismatch by where it sits."""

from __future__ import annotations

import pytest

from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest, FixRequest

REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        upper = torch.ones(n, n, dtype=torch.bool, device=x.device).triu(1)
        return (x * 0.5).masked_fill(upper, float("-inf"))


def get_inputs():
    return [torch.randn(3, 40, 40)]


def get_init_inputs():
    return []
"""

CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def masked_half_kernel(x_ptr, y_ptr, n, sxb, sxr, sxc, syb, syr, syc, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    r = tl.program_id(1)
    c = tl.arange(0, BLOCK)
    keep = c < n
    x = tl.load(x_ptr + b * sxb + r * sxr + c * sxc, mask=keep, other=0.0)
    y = tl.where(c > r, float("-inf"), x * 0.5)
    tl.store(y_ptr + b * syb + r * syr + c * syc, y, mask=keep)


class ModelNew(nn.Module):
    def forward(self, x):
        batch, rows, n = x.shape
        y = torch.empty_like(x)
        masked_half_kernel[(batch, rows)](
            x, y, n, x.stride(0), x.stride(1), x.stride(2), y.stride(0), y.stride(1), y.stride(2), BLOCK=64
        )
        return y
"""

BUGS = {
    "diagonal_masked": (CANDIDATE.replace("c > r", "c >= r"), "formula_error", "on the diagonal"),
    "transposed_store": (
        CANDIDATE.replace("y.stride(1), y.stride(2)", "y.stride(2), y.stride(1)"),
        "layout_mismatch",
        "transposed",
    ),
    "scale_factor": (CANDIDATE.replace("x * 0.5", "x * 0.125"), "formula_error", "scaled by 0.25"),
}


def _explain(candidate: str):
    run = run_accuracy(RunAccuracyRequest(reference=REFERENCE, candidate=candidate, backend="cpu", num_seeds=2))
    return run, explain_failure(ExplainRequest(run_id=run.run_id))


def test_correct_masked_candidate_passes_without_diagnosis():
    run, explained = _explain(CANDIDATE)
    assert run.verdict == "pass" and explained.diagnoses == []


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_masked_output_bug_is_named_not_a_numerical_problem(bug):
    candidate, pattern, words = BUGS[bug]
    run, explained = _explain(candidate)
    assert run.verdict == "fail"
    primary = next(d for d in explained.diagnoses if d.tested != "refuted")
    assert primary.pattern == pattern and words in primary.summary, primary
    assert not any(d.pattern in ("nan_mismatch", "inf_overflow", "small_value_outliers") for d in explained.diagnoses)
    if bug == "transposed_store":
        fixes = suggest_fix(FixRequest(run_id=run.run_id, verify=True)).fixes
        assert fixes[0].fix == "fix_layout" and fixes[0].verified
