"""Latent out-of-bounds reads on the cpu interpreter: loads whose lanes read the guard margins are
recorded even when the output hides them, diagnosed, and fixed by a mask the re-run proves."""

from __future__ import annotations

import textwrap

import pytest
import torch

from sandbox.harness import guards
from sandbox.harness.read_watch import ReadWatch
from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest, FixRequest

N, BLOCK = 1000, 256  # the last block has 1024 - 1000 = 24 lanes past the end

REFERENCE = """
import torch

class Model(torch.nn.Module):
    def forward(self, x, y):
        return {expr}

def get_inputs():
    return [torch.randn({n}), torch.randn({n})]

def get_init_inputs():
    return []
"""

CANDIDATE = """
import torch
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    {body}


class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        kernel[(triton.cdiv(x.numel(), {block}),)](x, y, out, x.numel(), BLOCK={block})
        return out
"""

ADD_MASKED = """x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)"""
ADD_UNMASKED_X = ADD_MASKED.replace("tl.load(x_ptr + offs, mask=mask)", "tl.load(x_ptr + offs)")
# out[i] = x[i] - x[i-1] (out[0] = x[0]): the unmasked load of x[i-1] reads one element before x.
DIFFERENCE = """x = tl.load(x_ptr + offs, mask=mask)
    prev = tl.load(x_ptr + offs - 1)
    tl.store(out_ptr + offs, tl.where(offs > 0, x - prev, x), mask=mask)"""


def _task(tmp_path, body: str, expr: str = "x + y") -> tuple[str, str]:
    ref = tmp_path / "reference.py"
    cand = tmp_path / "candidate.py"
    ref.write_text(REFERENCE.format(expr=expr, n=N))
    cand.write_text(textwrap.dedent(CANDIDATE.format(body=body, block=BLOCK)))
    return str(ref), str(cand)


def _run(tmp_path, body: str, expr: str = "x + y"):
    ref, cand = _task(tmp_path, body, expr)
    return run_accuracy(RunAccuracyRequest(reference=ref, candidate=cand, backend="cpu", seeds=[1, 2]))


def test_the_watch_counts_distinct_margin_elements_on_both_sides():
    inner = guards.guard_input(torch.arange(10, dtype=torch.float32), "nan")
    watch = ReadWatch()
    watch.watch(inner, "input 0")
    base, size = inner.data_ptr(), inner.element_size()
    addresses = [base + k * size for k in (-3, -1, -1, 0, 5, 9, 10, 10, 12)]
    mask = [True, True, True, True, True, True, True, True, False]  # the last lane is disabled
    watch.check(addresses, mask)
    assert watch.found() == [
        {"tensor": "input 0", "shape": [10], "elements_before": 2, "elements_after": 1, "lines": []}
    ]  # no candidate frame on this stack: no line
    watch.reset()
    watch.check(addresses, None)
    assert watch.found() == []


def test_a_masked_kernel_reads_nothing_out_of_bounds(tmp_path):
    run = _run(tmp_path, ADD_MASKED)
    assert run.verdict == "pass", run.summary
    assert run.checks.out_of_bounds_reads == []  # checked (cpu), nothing found
    assert not any("out-of-bounds read" in w for w in run.warnings)


def test_an_unmasked_tail_load_is_recorded_though_the_run_passes(tmp_path):
    run = _run(tmp_path, ADD_UNMASKED_X)
    assert run.verdict == "pass", run.summary  # the lanes past the end are never stored
    reads = run.checks.out_of_bounds_reads
    assert reads and {(r.seed, r.tensor, r.elements_after, r.elements_before) for r in reads} == {
        (1, "input 0", 24, 0),
        (2, "input 0", 24, 0),
    }
    written = (tmp_path / "candidate.py").read_text().splitlines()
    unmasked = next(i + 1 for i, line in enumerate(written) if "tl.load(x_ptr + offs)" in line)
    assert {tuple(r.lines) for r in reads} == {(unmasked,)}  # the line of the load that read past the end
    warning = next(w for w in run.warnings if "out-of-bounds read" in w)
    assert "24 element(s) past the end of input 0" in warning


def test_a_read_before_the_start_is_recorded(tmp_path):
    run = _run(tmp_path, DIFFERENCE, expr="torch.cat([x[:1], x[1:] - x[:-1]])")
    assert run.verdict == "pass", run.summary
    assert {(r.tensor, r.elements_before, r.elements_after) for r in run.checks.out_of_bounds_reads or []} == {
        ("input 0", 1, 23)  # x[-1], and x[i-1] past the end for the lanes 1001 <= i < 1024
    }


def test_a_latent_read_is_diagnosed_and_the_mask_fix_verified_by_the_reads_it_removes(tmp_path):
    run = _run(tmp_path, ADD_UNMASKED_X)
    explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
    primary = explained.diagnoses[0]
    assert (primary.pattern, primary.tested) == ("boundary_mask_error", "proven"), explained.summary
    assert "line 11" in primary.summary  # the unmasked tl.load
    fixed = suggest_fix(FixRequest(run_id=run.run_id, verify=True))
    top = fixed.fixes[0]
    assert (top.fix, top.verified) == ("boundary_mask", True), fixed.summary
    assert top.verification is not None
    assert (top.verification.before["out_of_bounds_reads"], top.verification.after["out_of_bounds_reads"]) == (24, 0)
    assert "elements read out of bounds 24 -> 0" in top.verification.describe()


def test_a_fix_that_leaves_the_read_is_not_verified(tmp_path):
    """Both loads unmasked: a patch that masks only one of them still reads past y's end."""
    from tools.fixes import _latent_defect_gone
    from tools.models.diagnosis import Verification

    body = ADD_MASKED.replace(", mask=mask)\n    y", ")\n    y").replace(
        "tl.load(y_ptr + offs, mask=mask)", "tl.load(y_ptr + offs)"
    )
    rerun = _run(tmp_path, body)
    assert {r.tensor for r in rerun.checks.out_of_bounds_reads or []} == {"input 0", "input 1"}
    diagnosis = explain_failure(ExplainRequest(run_id=rerun.run_id, heatmap=False)).diagnoses[0]
    verification = Verification(verdict="pass", summary="PASS", run_id=rerun.run_id)
    assert not _latent_defect_gone(verification, diagnosis, rerun)
    assert "still reads past the ends of input 0" in verification.summary


def test_a_read_beside_another_failure_does_not_take_the_primary(tmp_path):
    run = _run(tmp_path, ADD_UNMASKED_X.replace("x + y, mask", "x + y + 1.0, mask"))
    assert run.verdict == "fail"
    explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
    read = next(d for d in explained.diagnoses if "out_of_bounds_reads" in d.evidence)
    assert explained.diagnoses[0] is not read, explained.summary
    assert read.confidence < 0.5 and read.tested != "proven"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_low_precision_loads_are_watched_too(tmp_path, dtype):
    ref, cand = _task(tmp_path, ADD_UNMASKED_X)
    run = run_accuracy(RunAccuracyRequest(reference=ref, candidate=cand, backend="cpu", seeds=[1], dtype=dtype))
    assert run.verdict == "pass", run.summary
    assert [(r.tensor, r.elements_after) for r in run.checks.out_of_bounds_reads or []] == [("input 0", 24)]


GATHER_REFERENCE = """
import torch

class Model(torch.nn.Module):
    def forward(self, table, index):
        return table[index]

def get_inputs():
    return [torch.randn(64), torch.randint(0, 64, ({n},))]

def get_init_inputs():
    return []
"""

GATHER_CANDIDATE = """
import torch
import triton
import triton.language as tl


@triton.jit
def gather(table_ptr, index_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    index = tl.load(index_ptr + offs)
    tl.store(out_ptr + offs, tl.load(table_ptr + index, mask=mask), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, table, index):
        out = torch.empty(index.shape, dtype=table.dtype)
        gather[(triton.cdiv(index.numel(), {block}),)](table, index, out, index.numel(), BLOCK={block})
        return out
"""


def test_an_index_read_past_the_end_is_recorded_and_reads_a_valid_index(tmp_path):
    """Integer inputs get zero margins on the interpreter: the index read past the end is 0 (the
    dependent load stays inside the table) and the watch records the read."""
    ref, cand = tmp_path / "reference.py", tmp_path / "candidate.py"
    ref.write_text(GATHER_REFERENCE.format(n=N))
    cand.write_text(GATHER_CANDIDATE.format(block=BLOCK))
    run = run_accuracy(RunAccuracyRequest(reference=str(ref), candidate=str(cand), backend="cpu", seeds=[1]))
    assert run.verdict == "pass", run.summary
    assert [(r.tensor, r.elements_after) for r in run.checks.out_of_bounds_reads or []] == [("input 1", 24)]


def _run_forward(tmp_path, body: str, forward: str, expr: str = "x + y"):
    ref, cand = _task(tmp_path, body, expr)
    text = open(cand).read().replace("        out = torch.empty_like(x)\n", forward)
    assert text != open(cand).read()
    return run_accuracy(RunAccuracyRequest(reference=ref, candidate=text, backend="cpu", seeds=[1]))


def test_reads_past_a_tensor_the_forward_made_are_recorded(tmp_path):
    # the kernel reads a clone (a table, a contiguous copy): it lives outside every guarded tensor
    run = _run_forward(tmp_path, ADD_UNMASKED_X, "        out = torch.empty_like(x)\n        x = x.clone()\n")
    assert run.verdict == "pass", run.summary
    assert [(r.tensor, r.elements_after) for r in run.checks.out_of_bounds_reads] == [("a tensor the forward made", 24)]


def test_a_kernel_writing_into_a_tensor_the_forward_made_keeps_its_writes(tmp_path):
    # out is a clone the kernel overwrites (guarded for the launch, copied back after it)
    run = _run_forward(tmp_path, ADD_MASKED, "        out = (x * 0).clone()\n")
    assert run.verdict == "pass" and run.checks.out_of_bounds_reads == [], run.summary


def test_arguments_sharing_memory_keep_their_aliasing(tmp_path):
    # x and out are the same clone: out[i] = x[i] + y[i] in place, read and written through one buffer
    run = _run_forward(tmp_path, ADD_MASKED, "        x = x.clone()\n        out = x\n")
    assert run.verdict == "pass", run.summary


def test_a_view_into_a_larger_tensor_is_left_as_it_is(tmp_path):
    # the kernel is given the second half of a buffer the forward made; its lanes past the view's end
    # read the buffer's own memory beyond it (not an allocation's end): not recorded, values unchanged
    forward = "        out = torch.empty_like(x)\n        x = torch.cat([x, x])[x.numel():]\n"
    run = _run_forward(tmp_path, ADD_UNMASKED_X.replace("x_ptr + offs)", "x_ptr + offs - n)"), forward)
    assert run.verdict == "pass" and run.checks.out_of_bounds_reads == [], run.summary


def test_a_tensor_launched_twice_is_watched_once_and_refreshed_when_the_forward_changes_it(tmp_path):
    # launched on 2x, then changed back to x by torch and launched again: the second launch must see x
    forward = (
        "        out = torch.empty_like(x)\n        x0 = x\n        x = x.clone()\n        x.mul_(2.0)\n"
        f"        kernel[(triton.cdiv(x.numel(), {BLOCK}),)](x, y, out, x.numel(), BLOCK={BLOCK})\n"
        "        x.sub_(x0)\n"
    )
    run = _run_forward(tmp_path, ADD_UNMASKED_X, forward)
    assert run.verdict == "pass", run.summary
    assert [(r.tensor, r.elements_after) for r in run.checks.out_of_bounds_reads] == [("a tensor the forward made", 24)]
