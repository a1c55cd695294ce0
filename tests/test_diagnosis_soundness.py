"""explain_failure must not claim more than its evidence holds: small kernels written for these tests
(a scalar output, fp32 logic errors, integer counts, inputs that cannot exercise the op)."""

from __future__ import annotations

from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest

HEADER = """
import torch
import torch.nn as nn
import triton
import triton.language as tl
"""


def _explain(reference: str, candidate: str, num_seeds: int = 2, **options):
    run = run_accuracy(
        RunAccuracyRequest(reference=reference, candidate=candidate, backend="cpu", num_seeds=num_seeds, **options)
    )
    return run, explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))


# --- a direction statistic needs enough elements ---------------------------------------------------

INTEGER_VALUES_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return {op}


def get_inputs():
    # integer-valued floats: the CPU control is exact, the kernel's last-ulp nudge is the only error
    return [torch.randint(1, 9, (4096,)).to(torch.float32)]


def get_init_inputs():
    return []
"""

NUDGED_TOTAL = (
    HEADER
    + """

@triton.jit
def total_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    s = tl.sum(x, axis=0)
    tl.store(out_ptr, s - s * 1.2e-7)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(1, device=x.device, dtype=x.dtype)
        total_kernel[(1,)](x, out, BLOCK=4096)
        return out
"""
)

NUDGED_COPY = (
    HEADER
    + """

@triton.jit
def copy_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x - x * 1.2e-7)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        copy_kernel[(x.numel() // 1024,)](x, out, BLOCK=1024)
        return out
"""
)


def test_no_rounding_bias_claimed_from_one_inexact_element():
    reference = INTEGER_VALUES_REFERENCE.format(op="x.sum().reshape(1)")
    run, explained = _explain(reference, NUDGED_TOTAL)
    assert run.verdict == "pass", run.seeds[0].summary
    assert not any(d.pattern == "rounding_mode_bias" for d in explained.diagnoses), explained.diagnoses
    # the same one-ulp nudge on 4096 elements is a real one-sided bias, still reported
    run, explained = _explain(INTEGER_VALUES_REFERENCE.format(op="x.clone()"), NUDGED_COPY)
    assert run.verdict == "pass", run.seeds[0].summary
    assert any(d.pattern == "rounding_mode_bias" for d in explained.diagnoses), explained.diagnoses
