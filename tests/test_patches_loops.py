"""suggest_fix patches on the shapes real kernels take: several inputs written in place, log-sum-exp
over column blocks, a variance streamed over column blocks. Each kernel is run, diagnosed and
patched on the cpu backend, and the patch is verified by re-running it."""

from __future__ import annotations

from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest, FixRequest
from tools.repair.registry import patch


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


LOGSUMEXP_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.logsumexp(x, dim=1)


def get_inputs():
    return [torch.randn(6, 700)]


def get_init_inputs():
    return []
"""

#: Row log-sum-exp streamed over column blocks with no max subtracted: exp overflows for large x.
LOGSUMEXP_BLOCKS = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lse_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n_cols + idx, mask=idx < n_cols, other=float("-inf"))
        total += tl.sum(tl.exp(v), axis=0)
    tl.store(out_ptr + row, tl.log(total))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        lse_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=128)
        return out
"""


def test_exp_summed_over_column_blocks_gets_one_row_max_from_a_first_pass():
    fix = _verified_fix(LOGSUMEXP_REFERENCE, LOGSUMEXP_BLOCKS, "max_subtraction", input_profile="large_magnitude")
    assert "_row_max = tl.maximum(_row_max, tl.max(v, axis=0))" in fix.patched_source
    assert "tl.exp(v - _row_max)" in fix.patched_source and "(_row_max + tl.log(total))" in fix.patched_source
    assert fix.verified, fix.verification


def test_single_block_exp_keeps_the_in_place_max_subtraction():
    single = LOGSUMEXP_BLOCKS.replace("for start in range(0, n_cols, BLOCK):", "if True:").replace("start + ", "")
    patched = patch("max_subtraction", single)
    assert "tl.exp(v - tl.max(v, axis=0))" in patched and "_row_max" not in patched


STANDARDIZE_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        mean = x.mean(dim=1, keepdim=True)
        var = x.var(dim=1, unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var + 1e-5)


def get_inputs():
    # every value one away from a large mean: outputs near +-1, the one-pass variance cancels
    return [1000.0 + torch.randint(0, 2, (4, 700)).float() * 2.0 - 1.0]


def get_init_inputs():
    return []
"""

#: E[x^2] - E[x]^2 streamed over column blocks (cancels for a large mean); the output loop
#: defines its own mask, which exists only inside that loop.
STANDARDIZE_ONE_PASS = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def standardize_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    base = tl.program_id(0) * n_cols
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    q = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + base + idx, mask=idx < n_cols, other=0.0)
        s += v
        q += v * v
    mean = tl.sum(s, axis=0) / n_cols
    var = tl.sum(q, axis=0) / n_cols - mean * mean
    inv = 1.0 / tl.sqrt(var + 1e-5)
    for start in range(0, n_cols, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        valid = idx < n_cols
        v = tl.load(x_ptr + base + idx, mask=valid, other=0.0)
        tl.store(y_ptr + base + idx, (v - mean) * inv, mask=valid)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        standardize_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=256)
        return y
"""


def test_streamed_variance_centres_with_the_mask_of_its_own_loop():
    fix = _verified_fix(STANDARDIZE_REFERENCE, STANDARDIZE_ONE_PASS, "stable_formula")
    assert "v = tl.where(idx < n_cols, v - mean, 0.0)" in fix.patched_source
    assert "var = tl.sum(q, axis=0) / n_cols\n" in fix.patched_source
    assert fix.verified, fix.verification


ROW_SUM_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1)


def get_inputs():
    return [torch.randn(20, 300)]


def get_init_inputs():
    return []
"""

#: Tiles of rows x column blocks, masked on the rows only: the last column block reads past
#: each row (into the next one, and past the end of x for the last row).
ROW_SUM_COLUMN_TAIL = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    total = tl.zeros((BLOCK_R,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        tile = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=rows[:, None] < n_rows, other=0.0)
        total += tl.sum(tile, axis=1)
    tl.store(out_ptr + rows, total, mask=rows < n_rows)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_sum_kernel[(triton.cdiv(x.shape[0], 8),)](x, out, x.shape[0], x.shape[1], BLOCK_R=8, BLOCK_C=128)
        return out
"""


def test_a_mask_missing_the_bound_of_the_loop_dimension_gets_the_loop_stop():
    fix = _verified_fix(ROW_SUM_REFERENCE, ROW_SUM_COLUMN_TAIL, "boundary_mask")
    assert "mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols)" in fix.patched_source
    assert fix.verified, fix.verification


def test_a_missing_bound_that_cannot_be_found_is_left_as_guidance():
    # the rows are compared in no mask, step through no loop and the grid is a bare count of
    # programs (no extent passed to the kernel): no safe bound for them
    no_row_bound = ROW_SUM_COLUMN_TAIL.replace(
        "mask=rows[:, None] < n_rows, other", "mask=cols[None, :] < n_cols, other"
    )
    no_row_bound = no_row_bound.replace("total, mask=rows < n_rows)", "total)")
    bare_grid = no_row_bound.replace("[(triton.cdiv(x.shape[0], 8),)]", "[(3,)]")
    patched = patch("boundary_mask", bare_grid)
    assert patched is None or "mask=cols[None, :] < n_cols, other=0.0)" in patched
    # a column mask never bounds the store of the rows' sums
    assert patched is None or "tl.store(out_ptr + rows, total)" in patched
    # with the grid dividing x.shape[0], passed as n_rows, the rows' bound is n_rows
    patched = patch("boundary_mask", no_row_bound)
    assert "mask=(cols[None, :] < n_cols) & (rows[:, None] < n_rows), other=0.0)" in patched
    assert "tl.store(out_ptr + rows, total, mask=(rows < n_rows))" in patched


ROW_MIN_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.min(dim=1).values


def get_inputs():
    return [torch.rand(37, 300) + 0.5]


def get_init_inputs():
    return []
"""

#: A hand-written running minimum over 128-column blocks whose tail lanes are padded with 0.0:
#: on positive data the padding wins the minimum of every row.
ROW_MIN_PADDED_WITH_ZERO = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_min_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    best = tl.full((BLOCK,), float("inf"), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        v = tl.load(x_ptr + row * stride + start + offs, mask=start + offs < n_cols, other=0.0)
        smaller = v < best
        best = tl.where(smaller, v, best)
    tl.store(out_ptr + row, tl.min(best, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_min_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=128)
        return out
"""


def test_padding_that_wins_a_running_minimum_is_diagnosed_and_becomes_its_identity():
    run = run_accuracy(
        RunAccuracyRequest(reference=ROW_MIN_REFERENCE, candidate=ROW_MIN_PADDED_WITH_ZERO, backend="cpu", num_seeds=2)
    )
    primary = explain_failure(ExplainRequest(run_id=run.run_id)).diagnoses[0]
    assert primary.pattern == "boundary_mask_error" and primary.evidence["padding"] == 0.0, primary
    assert primary.evidence["wrong_equal_to_padding"] == primary.evidence["wrong"] == 37
    found = next(f for f in suggest_fix(FixRequest(run_id=run.run_id, verify=True)).fixes if f.fix == "boundary_mask")
    assert found.verified and 'other=float("inf")' in (found.patched_source or ""), found


def test_padding_of_a_value_also_summed_or_thresholded_is_kept():
    summed = ROW_MIN_PADDED_WITH_ZERO.replace("smaller = v < best", "smaller = v < best\n        total = tl.sum(v)")
    assert patch("boundary_mask", summed) is None
    thresholded = ROW_MIN_PADDED_WITH_ZERO.replace("smaller = v < best", "smaller = v < 0.5")
    assert patch("boundary_mask", thresholded) is None
