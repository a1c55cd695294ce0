"""explain_failure must not claim more than its evidence holds: small kernels written for these tests
(a scalar output, fp32 logic errors, integer counts, inputs that cannot exercise the op)."""

from __future__ import annotations

from pathlib import Path

from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest, FixRequest

from .helpers import without_experiments

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


COUNT_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, ids):
        return torch.cumsum((ids != 0).to(torch.int64), dim=1)


def get_inputs():
    return [torch.randint(0, 5, (4, 300))]


def get_init_inputs():
    return []
"""

#: running counts of non-zero ids, one too small: its only casts are of comparisons (0 / 1), so a step toward
#: zero on every output is its arithmetic, not a float -> int rounding
COUNT_ONE_LOW = (
    HEADER
    + """

@triton.jit
def count_kernel(ids_ptr, out_ptr, S, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    ids = tl.load(ids_ptr + row * S + offs, mask=offs < S, other=0)
    tok = (ids != 0).to(tl.int32)
    c = tl.cumsum(tok, axis=0) - 1
    tl.store(out_ptr + row * S + offs, c.to(tl.int64), mask=offs < S)


class ModelNew(nn.Module):
    def forward(self, ids):
        out = torch.empty(ids.shape, device=ids.device, dtype=torch.int64)
        count_kernel[(ids.shape[0],)](ids, out, ids.shape[1], BLOCK=512)
        return out
"""
)


def test_an_integer_kernel_without_a_float_cast_is_not_called_a_rounding_bias():
    run, explained = _explain(COUNT_REFERENCE, COUNT_ONE_LOW)
    assert run.verdict == "fail", run.summary
    assert not any(d.pattern == "rounding_mode_bias" for d in explained.diagnoses), explained.diagnoses
    top = explained.diagnoses[0]
    assert top.pattern == "formula_error" and top.location is not None and top.location.line == 14, top


def test_a_failure_a_shift_of_the_inputs_removes_is_no_cancellation():
    """heldout16's Lion step with sign(0) taken as +1: its wrong outputs sit where the update should be 0, which
    looks like results cancelling to ~0; a shift of the inputs (which makes any cancellation worse) removes the
    failure, since no entry is 0 any more: cancellation is refuted, not left standing."""
    task = Path(__file__).parent / "heldout16" / "lion_step_bf16grad"
    run, explained = _explain(str(task / "reference.py"), str(task / "bug_sign_zero_positive.py"))
    assert run.verdict == "fail", run.summary
    offset = next(x for x in explained.experiments if x.id == "input_offset")
    assert "cancellation_error" in offset.refutes, offset
    assert not any(d.pattern == "cancellation_error" and d.tested != "refuted" for d in explained.diagnoses)


# --- a constant factor is scale-free; on a scalar output it shows across seeds -----------------------

NLL_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, p):
        # summed over classes, averaged over the batch
        return -torch.log(p).sum() / p.shape[0]


def get_inputs():
    return [torch.rand(48, 300) * 0.98 + 0.01]


def get_init_inputs():
    return []
"""

NLL_KERNEL = (
    HEADER
    + """

@triton.jit
def nll_kernel(p_ptr, out_ptr, C, divisor, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range({start}, {stop}, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        p = tl.load(p_ptr + row * C + cols, mask=cols < C, other=1.0)
        total += -tl.log(p)
    tl.atomic_add(out_ptr, tl.sum(total, axis=0) / divisor)


class ModelNew(nn.Module):
    def forward(self, p):
        B, C = p.shape
        out = torch.zeros((), device=p.device, dtype=torch.float32)
        nll_kernel[(B,)](p, out, C, {divisor}, BLOCK=64)
        return out
"""
)


def test_a_divisor_error_on_a_scalar_loss_is_a_formula_error_not_refuted_by_scale():
    candidate = NLL_KERNEL.format(start="0", stop="C", divisor="B * C")  # the mean over elements
    run, explained = _explain(NLL_REFERENCE, candidate)
    assert run.verdict == "fail"
    primary = explained.diagnoses[0]
    assert primary.pattern == "formula_error", explained.summary
    assert abs(primary.evidence["scale"] * 300 - 1) < 1e-4 and primary.evidence["factor"] == "1/300"
    for e in explained.experiments:
        assert "formula_error" not in e.refutes, (e.id, e.finding)


# --- an fp32 kernel's large error is not a precision loss -------------------------------------------------


def test_an_fp32_logic_error_is_not_led_by_a_precision_hypothesis():
    # the column loop starts one block late: every row loses its first 64 terms, a data-dependent share
    candidate = NLL_KERNEL.format(start="BLOCK", stop="C", divisor="B")
    run, explained = _explain(NLL_REFERENCE, candidate)
    assert run.verdict == "fail"
    credible = [d for d in explained.diagnoses if d.tested != "refuted"]
    assert credible and credible[0].pattern == "formula_error", explained.summary
    assert credible[0].confidence < 0.5 and credible[0].tested == "untested"  # by elimination, said as such
    assert "scale" not in credible[0].evidence  # no constant factor: the lost share moves with the data
    assert not any(d.pattern == "low_precision_accumulation" for d in credible), explained.diagnoses


# --- exact inputs that cannot exercise the op -------------------------------------------------------------

ROW_PRODUCT_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.prod(x, dim=1)


def get_inputs():
    return [1 + 0.02 * torch.randn(32, 512)]


def get_init_inputs():
    return []
"""

ROW_PRODUCT_CANDIDATE = (
    HEADER
    + """

@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def row_product_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK,), 1.0, dtype=tl.float32)
    for start in range(BLOCK, C, BLOCK):  # the first block of every row is skipped
        cols = start + tl.arange(0, BLOCK)
        acc *= tl.load(x_ptr + row * C + cols, mask=cols < C, other=1.0)
    tl.store(out_ptr + row, tl.reduce(acc, 0, _mul))


class ModelNew(nn.Module):
    def forward(self, x):
        R, C = x.shape
        out = torch.empty(R, device=x.device, dtype=x.dtype)
        row_product_kernel[(R,)](x, out, C, BLOCK=128)
        return out
"""
)


def test_exact_inputs_whose_reference_output_is_degenerate_prove_nothing():
    with without_experiments("access_trace", "repair_search"):  # they locate the skipped block before it runs
        run, explained = _explain(ROW_PRODUCT_REFERENCE, ROW_PRODUCT_CANDIDATE)
    assert run.verdict == "fail"
    exact = next(e for e in explained.experiments if e.id == "exact_inputs")
    # a 0 among 512 factors of -1/0/+1 is all but certain: both products are 0, the skipped block cannot show
    assert exact.finding.startswith("inconclusive") and "rounding" not in exact.finding.split(":")[0], exact.finding
    credible = [d for d in explained.diagnoses if d.tested != "refuted"]
    assert not credible or credible[0].pattern not in ("low_precision_accumulation", "rounding_mode_bias"), credible


# --- integer counts: the tail never counted, the padding counted, lost increments -------------------------

ROW_HISTOGRAM_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, labels):
        return torch.stack([torch.bincount(row, minlength=16) for row in labels.to(torch.int64)]).to(torch.int32)


def get_inputs():
    return [torch.randint(0, 16, (6, 700), dtype=torch.int32)]


def get_init_inputs():
    return []
"""

ROW_HISTOGRAM_CANDIDATE = (
    HEADER
    + """

@triton.jit
def row_histogram_kernel(labels_ptr, out_ptr, C, BINS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    valid = cols < C
    label = tl.load(labels_ptr + row * C + cols, mask=valid, other=5)
    ones = tl.full((BLOCK,), 1, dtype=tl.int32)
    tl.atomic_add(out_ptr + row * BINS + label, ones, mask=valid)


class ModelNew(nn.Module):
    def forward(self, labels):
        R, C = labels.shape
        out = torch.zeros((R, 16), device=labels.device, dtype=torch.int32)
        grid = (R, triton.cdiv(C, 256))
        row_histogram_kernel[grid](labels, out, C, BINS=16, BLOCK=256)
        return out
"""
)


def test_integer_counts_off_by_the_tail_or_the_padding_of_a_block_tiling():
    floor_grid = ROW_HISTOGRAM_CANDIDATE.replace("triton.cdiv(C, 256)", "C // 256")
    unmasked = ROW_HISTOGRAM_CANDIDATE.replace("ones, mask=valid)", "ones)")
    read_modify_write = ROW_HISTOGRAM_CANDIDATE.replace(
        "tl.atomic_add(out_ptr + row * BINS + label, ones, mask=valid)",
        "seen = tl.load(out_ptr + row * BINS + label, mask=valid, other=0)\n"
        "    tl.store(out_ptr + row * BINS + label, seen + ones, mask=valid)",
    )
    expected = {
        floor_grid: ("boundary_mask_error", "never counted", 6 * (700 % 256)),
        unmasked: ("boundary_mask_error", "counted too", 6 * (256 - 700 % 256)),
        read_modify_write: ("formula_error", "atomic", None),
    }
    for candidate, (pattern, words, off_by) in expected.items():
        run, explained = _explain(ROW_HISTOGRAM_REFERENCE, candidate)
        assert run.verdict == "fail"
        primary = explained.diagnoses[0]
        assert primary.pattern == pattern and words in primary.summary, explained.summary
        assert primary.confidence >= 0.8
        if off_by is not None:
            assert abs(primary.evidence["shortfall"]) == off_by
    run, explained = _explain(ROW_HISTOGRAM_REFERENCE, ROW_HISTOGRAM_CANDIDATE)
    assert run.verdict == "pass" and not explained.diagnoses


# --- small values: precision lost where results are tiny, not a wrong value everywhere -----------------

ROW_SCALE_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, scale):
        return x * scale[:, None]


def get_inputs():
    return [torch.randn(200, 150, dtype=torch.bfloat16), (torch.rand(200) + 0.5).to(torch.bfloat16)]


def get_init_inputs():
    return []
"""

ROW_SCALE_CANDIDATE = (
    HEADER
    + """

@triton.jit
def row_scale_kernel(x_ptr, scale_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < C
    x = tl.load(x_ptr + row * C + cols, mask=mask, other=0.0)
    s = {scale_load}
    tl.store(out_ptr + row * C + cols, x * s, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, scale):
        out = torch.empty_like(x)
        row_scale_kernel[(x.shape[0],)](x, scale, out, x.shape[1], BLOCK=256)
        return out
"""
)


def test_a_wrong_value_at_every_magnitude_is_not_called_a_small_value_problem():
    # the scale is read per column, not per row: the largest outputs are as wrong as the tiny ones
    run, explained = _explain(
        ROW_SCALE_REFERENCE, ROW_SCALE_CANDIDATE.format(scale_load="tl.load(scale_ptr + cols, mask=mask, other=0.0)")
    )
    assert run.verdict == "fail"
    assert not any(d.pattern == "small_value_outliers" for d in explained.diagnoses), explained.diagnoses
    correct = run_accuracy(
        RunAccuracyRequest(
            reference=ROW_SCALE_REFERENCE,
            candidate=ROW_SCALE_CANDIDATE.format(scale_load="tl.load(scale_ptr + row)"),
            backend="cpu",
        )
    )
    assert correct.verdict == "pass", correct.summary


# --- integer outputs: the poison sentinel is the dtype's minimum, which a clamp computes too -----------

QUANTIZE_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(torch.round(x * 20.0), -128, 127).to(torch.int8)


def get_inputs():
    return [torch.randn(3000)]


def get_init_inputs():
    return []
"""

QUANTIZE_CANDIDATE = (
    HEADER
    + """

@triton.jit
def quantize_kernel(x_ptr, out_ptr, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    q = tl.floor(x * SCALE + 0.5)
    q = tl.minimum(tl.maximum(q, -128.0), 127.0)
    tl.store(out_ptr + offs, q.to(tl.int8), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape, device=x.device, dtype=torch.int8)
        n = x.numel()
        quantize_kernel[(triton.cdiv(n, 1024),)](x, out, n, SCALE={scale}, BLOCK=1024)
        return out
"""
)


def test_a_saturating_integer_output_is_not_called_unwritten():
    # the scale is 10x too large: many outputs clamp to -128 (the poison sentinel) and to 127; every
    # element was written, so "never written" would be a false proof
    run, explained = _explain(QUANTIZE_REFERENCE, QUANTIZE_CANDIDATE.format(scale="200.0"))
    assert run.verdict == "fail"
    assert not any(d.pattern in ("unwritten_output", "boundary_mask_error") for d in explained.diagnoses), (
        explained.diagnoses
    )


# --- uint8 outputs: a wrong value hits the sentinel by chance -----------------------------------------

BYTE_MIX_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return ((a.to(torch.int32) * 3 + b.to(torch.int32)) & 255).to(torch.uint8)


def get_inputs():
    return [torch.randint(0, 256, (40000,), dtype=torch.uint8), torch.randint(0, 256, (40000,), dtype=torch.uint8)]


def get_init_inputs():
    return []
"""

BYTE_MIX_CANDIDATE = (
    HEADER
    + """

@triton.jit
def byte_mix_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0).to(tl.int32)
    b = tl.load(b_ptr + offs, mask=mask, other=0).to(tl.int32)
    tl.store(out_ptr + offs, ((a * {factor} + b) & 255).to(tl.uint8), mask=mask)


class ModelNew(nn.Module):
    def forward(self, a, b):
        out = torch.empty(a.shape, dtype=torch.uint8, device=a.device)
        byte_mix_kernel[({grid},)](a, b, out, a.numel(), BLOCK=1024)
        return out
"""
)


def test_a_wrong_uint8_value_is_not_called_unwritten_where_the_sentinel_is_chance():
    """Every element written, ~1 in 256 of them computed as 0xAB (the uint8 sentinel) by the wrong factor:
    no more often than 0xAA or 0xAC, so nothing proves them unwritten. A grid one block short leaves a
    tail that holds the sentinel alone, and that is still named."""
    run, explained = _explain(
        BYTE_MIX_REFERENCE, BYTE_MIX_CANDIDATE.format(factor=5, grid="triton.cdiv(a.numel(), 1024)")
    )
    assert run.verdict == "fail"
    assert not any(d.pattern == "unwritten_output" for d in explained.diagnoses), explained.diagnoses
    run, explained = _explain(BYTE_MIX_REFERENCE, BYTE_MIX_CANDIDATE.format(factor=3, grid="a.numel() // 1024"))
    assert run.verdict == "fail"
    assert "never written" in explained.summary, explained.summary


# --- atomics into an uninitialised output: written everywhere, and still the poison ----------------

COLUMN_SUM_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=0)


def get_inputs():
    return [torch.randn(300, 70)]


def get_init_inputs():
    return []
"""

COLUMN_SUM_CANDIDATE = (
    HEADER
    + """

@triton.jit
def column_sum_kernel(x_ptr, out_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + cols, tl.sum(x, axis=0), mask=cols < C)


class ModelNew(nn.Module):
    def forward(self, x):
        R, C = x.shape
        out = torch.{allocate}(C, device=x.device, dtype=x.dtype)
        column_sum_kernel[(triton.cdiv(R, 64),)](x, out, R, C, BLOCK_R=64, BLOCK_C=128)
        return out
"""
)


def test_atomics_into_an_uninitialised_output_are_not_a_grid_tail():
    # every element is written by atomic adds, into torch.empty memory: not "the grid misses the last tile"
    candidate = COLUMN_SUM_CANDIDATE.replace("{allocate}", "empty")
    run, explained = _explain(COLUMN_SUM_REFERENCE, candidate)
    assert run.verdict == "fail"
    lead = explained.diagnoses[0]
    assert lead.pattern == "unwritten_output" and lead.suggested_fixes == ["initialize_output"], explained.diagnoses
    assert "atomic_add" in lead.summary
    fixes = suggest_fix(FixRequest(run_id=run.run_id, verify=True, max_fixes=3)).fixes
    assert fixes and fixes[0].fix == "initialize_output" and fixes[0].verified, fixes
    correct = COLUMN_SUM_CANDIDATE.replace("{allocate}", "zeros")
    assert run_accuracy(
        RunAccuracyRequest(reference=COLUMN_SUM_REFERENCE, candidate=correct, backend="cpu")
    ).verdict == ("pass")


# --- a grid axis missing: whole slices unwritten, not a partial tile ---------------------------------

BATCHED_SCALE_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2.0


def get_inputs():
    return [torch.randn(3, 50, 40)]


def get_init_inputs():
    return []
"""

BATCHED_SCALE_CANDIDATE = (
    HEADER
    + """

@triton.jit
def scale_kernel(x_ptr, out_ptr, per_batch, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    base = tl.program_id(1) * per_batch
    mask = offs < per_batch
    tl.store(out_ptr + base + offs, tl.load(x_ptr + base + offs, mask=mask) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        per_batch = x.shape[1] * x.shape[2]
        scale_kernel[(triton.cdiv(per_batch, 256), {batches})](x, out, per_batch, BLOCK=256)
        return out
"""
)


def test_a_missing_grid_axis_leaves_whole_slices_unwritten_and_is_named_so():
    run, explained = _explain(BATCHED_SCALE_REFERENCE, BATCHED_SCALE_CANDIDATE.format(batches="1"))
    assert run.verdict == "fail"
    lead = explained.diagnoses[0]
    assert lead.pattern == "unwritten_output" and "slices 1..2 along dimension 0" in lead.summary, explained.diagnoses
    assert "partial tile" not in lead.summary
    correct = BATCHED_SCALE_CANDIDATE.format(batches="x.shape[0]")
    assert run_accuracy(
        RunAccuracyRequest(reference=BATCHED_SCALE_REFERENCE, candidate=correct, backend="cpu")
    ).verdict == ("pass")


PLANES_SCALE_REFERENCE = BATCHED_SCALE_REFERENCE.replace("torch.randn(3, 50, 40)", "torch.randn(2, 3, 20, 40)")

PLANES_SCALE_CANDIDATE = (
    HEADER
    + """

@triton.jit
def scale_kernel(x_ptr, out_ptr, per_plane, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    base = tl.program_id(1) * per_plane
    mask = offs < per_plane
    tl.store(out_ptr + base + offs, tl.load(x_ptr + base + offs, mask=mask) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        b, c, h, w = x.shape
        scale_kernel[(triton.cdiv(h * w, 256), {planes})](x, out, h * w, BLOCK=256)
        return out
"""
)


def test_a_grid_axis_sized_for_one_of_two_flattened_dimensions_is_named_so():
    """One program per (sample, channel) plane, the grid sized b (2) for b * c (6): sample 0's channel 2 and all of
    sample 1 are unwritten; along dimension 0 alone no slice pattern holds, along dimensions 0..1 taken as one it
    does (planes 2..5 of 6)."""
    run, explained = _explain(PLANES_SCALE_REFERENCE, PLANES_SCALE_CANDIDATE.format(planes="b"))
    assert run.verdict == "fail"
    lead = explained.diagnoses[0]
    assert lead.pattern == "unwritten_output", explained.diagnoses
    assert "slices 2..5 along dimensions 0..1 taken as one (2 x 3 = 6 slices)" in lead.summary, lead.summary
    launch = PLANES_SCALE_CANDIDATE.splitlines().index(
        "        scale_kernel[(triton.cdiv(h * w, 256), {planes})](x, out, h * w, BLOCK=256)"
    )
    assert lead.location is not None and lead.location.line == launch + 1, lead  # the grid's line: the search's
    assert lead.evidence.get("edit_after") == "b * c", lead.evidence
    correct = PLANES_SCALE_CANDIDATE.format(planes="b * c")
    assert run_accuracy(
        RunAccuracyRequest(reference=PLANES_SCALE_REFERENCE, candidate=correct, backend="cpu")
    ).verdict == ("pass")


# --- a suspicion the same experiment refutes does not stand in for the logic error it shows ----------------

CUBE_NORM_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.abs().pow(3).sum(dim=1).pow(1.0 / 3.0)


def get_inputs():
    return [torch.randn(64, 200) * 4]


def get_init_inputs():
    return []
"""

CUBE_NORM_CANDIDATE = (
    HEADER
    + """

@triton.jit
def cube_norm_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=0.0)
    s = tl.sum(CUBE, axis=0)
    tl.store(out_ptr + row, tl.exp(tl.log(s) / 3.0))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        cube_norm_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=256)
        return out
"""
)


def test_a_dropped_abs_is_a_formula_error_though_exp_was_suspected_of_overflow():
    """x^3 for |x|^3: signed cubes cancel and negative sums give log(<0) = NaN. The NaNs and the tl.exp make
    inf_overflow a suspect; exact_inputs refutes it and shows a logic error, which must then be reported
    (the refuted suspect counted as an explanation and left no diagnosis at all)."""
    run, explained = _explain(CUBE_NORM_REFERENCE, CUBE_NORM_CANDIDATE.replace("CUBE", "x * x * x"))
    assert run.verdict == "fail"
    credible = [d for d in explained.diagnoses if d.tested != "refuted"]
    assert credible and (credible[0].pattern, credible[0].tested) == ("formula_error", "confirmed"), explained.summary
    correct = CUBE_NORM_CANDIDATE.replace("CUBE", "tl.abs(x) * x * x")
    assert run_accuracy(
        RunAccuracyRequest(reference=CUBE_NORM_REFERENCE, candidate=correct, backend="cpu")
    ).verdict == ("pass")


# --- a divisor that differs between positions: a few exact factors, not rounding -------------------------

SEGMENT_MEAN_REFERENCE = """
import torch
import torch.nn as nn

SEGMENTS = 128


class Model(nn.Module):
    def forward(self, x):
        # segments of 30 and 31 values, alternating
        return torch.stack([x[30 * s + s // 2 : 30 * s + s // 2 + 30 + s % 2].mean() for s in range(SEGMENTS)])


def get_inputs():
    return [torch.rand(30 * SEGMENTS + SEGMENTS // 2)]


def get_init_inputs():
    return []
"""

SEGMENT_MEAN_CANDIDATE = (
    HEADER
    + """

@triton.jit
def segment_mean_kernel(x_ptr, out_ptr):
    s = tl.program_id(0)
    start = 30 * s + s // 2
    length = 30 + s % 2
    offs = tl.arange(0, 32)
    v = tl.load(x_ptr + start + offs, mask=offs < length, other=0.0)
    tl.store(out_ptr + s, tl.sum(v, axis=0) / {divisor})


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(128, device=x.device, dtype=x.dtype)
        segment_mean_kernel[(128,)](x, out)
        return out
"""
)


def test_a_divisor_wrong_for_some_positions_is_a_formula_error_with_its_factors():
    """Every segment divided by 30, the 31-long ones too: the output is the golden times 1 or 31/30, exactly, over
    many different values. No rounding gives two exact steps; a precision hypothesis must not lead."""
    run, explained = _explain(SEGMENT_MEAN_REFERENCE, SEGMENT_MEAN_CANDIDATE.format(divisor="30.0"))
    assert run.verdict == "fail"
    primary = explained.diagnoses[0]
    assert primary.pattern == "formula_error" and "constant factors" in primary.summary, explained.summary
    factors = primary.evidence["factors"]
    assert len(factors) == 2 and abs(factors[0] - 1) < 1e-6 and abs(factors[1] - 31 / 30) < 1e-6, factors
    assert "31/30" in primary.summary
    assert not any(d.pattern == "low_precision_accumulation" for d in explained.diagnoses), explained.diagnoses
    right = run_accuracy(
        RunAccuracyRequest(
            reference=SEGMENT_MEAN_REFERENCE,
            candidate=SEGMENT_MEAN_CANDIDATE.format(divisor="length.to(tl.float32)"),
            backend="cpu",
            num_seeds=2,
        )
    )
    assert right.verdict == "pass", right.summary
