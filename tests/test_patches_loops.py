"""suggest_fix patches on the shapes real kernels take: several inputs written in place, log-sum-exp
over column blocks, a variance streamed over column blocks. Each kernel is run, diagnosed and
patched on the cpu backend, and the patch is verified by re-running it."""

from __future__ import annotations

from tools.accuracy import run_accuracy
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import FixRequest


def _verified_fix(reference: str, candidate: str, fix: str, **options):
    run = run_accuracy(
        RunAccuracyRequest(reference=reference, candidate=candidate, backend="cpu", num_seeds=2, **options)
    )
    assert run.verdict != "pass", run.summary
    fixes = suggest_fix(FixRequest(run_id=run.run_id, verify=True, max_fixes=5)).fixes
    found = next((f for f in fixes if f.fix == fix), None)
    assert found is not None and found.patched_source, [f.fix for f in fixes]
    return found


SCALE_SHIFT_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return x * 3.0, y + 1.0


def get_inputs():
    return [torch.randn(3000), torch.randn(3000)]


def get_init_inputs():
    return []
"""

#: Both inputs are passed again as the destinations: the kernel updates them in place.
SCALE_SHIFT_IN_PLACE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_shift_kernel(x_ptr, y_ptr, x_out_ptr, y_out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(x_out_ptr + offs, x * 3.0, mask=mask)
    tl.store(y_out_ptr + offs, y + 1.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, y):
        n = x.numel()
        scale_shift_kernel[(triton.cdiv(n, 512),)](x, y, x, y, n, BLOCK=512)
        return x, y
"""


def test_every_input_written_in_place_gets_its_own_output():
    fix = _verified_fix(SCALE_SHIFT_REFERENCE, SCALE_SHIFT_IN_PLACE, "do_not_mutate_inputs")
    assert "_out_x = torch.empty_like(x)" in fix.patched_source
    assert "_out_y = torch.empty_like(y)" in fix.patched_source
    assert "return _out_x, _out_y" in fix.patched_source
    assert fix.verified, fix.verification
