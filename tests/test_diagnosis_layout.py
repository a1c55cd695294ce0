"""Layout and indexing errors found by evidence that holds whatever the kernel: right values in the wrong
places (the wrong outputs are golden values of other positions), an input read in another memory layout
(stored that way, the candidate passes), copies of the wrong input elements (inputs tagged with distinct
values), and index outputs that break ties the other way. Each kernel here is small and written for these
tests; the negative cases are logic errors of the same shapes that none of this may claim."""

from __future__ import annotations

import pytest

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


def _explain(reference: str, candidate: str, seeds: list[int] | None = None):
    options = {"seeds": seeds} if seeds else {"num_seeds": 1}
    run = run_accuracy(RunAccuracyRequest(reference=reference, candidate=candidate, backend="cpu", **options))
    assert run.verdict == "fail", run.summary
    return explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))


def _primary(explained):
    credible = [d for d in explained.diagnoses if d.tested != "refuted"]
    return credible[0] if credible else None


# --- right values in the wrong places: a 2 x 2 sub-block shuffle (depth-to-space) -------------------------

SHUFFLE_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.pixel_shuffle(x, 2){extra}


def get_inputs():
    return [torch.randn(2, 16, 9, 11, dtype=torch.float16)]


def get_init_inputs():
    return []
"""

SHUFFLE_CANDIDATE = (
    HEADER
    + """

@triton.jit
def shuffle_kernel(x_ptr, out_ptr, total, C, H, W, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    ow = offs % (2 * W)
    oh = (offs // (2 * W)) % (2 * H)
    c = (offs // (4 * H * W)) % C
    n = offs // (4 * H * W * C)
    i = oh % 2
    j = ow % 2
    src = ((n * C * 4 + c * 4 + SUB) * H + oh // 2) * W + ow // 2
    x = tl.load(x_ptr + src, mask=mask)
    tl.store(out_ptr + offs, x{scale}, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        N, C4, H, W = x.shape
        out = torch.empty((N, C4 // 4, 2 * H, 2 * W), device=x.device, dtype=x.dtype)
        total = out.numel()
        shuffle_kernel[(triton.cdiv(total, 256),)](x, out, total, C4 // 4, H, W, BLOCK=256)
        return out
"""
)


def test_computed_values_with_swapped_sub_indices_are_right_values_in_the_wrong_places():
    """x * 2, shuffled with i and j swapped: fp16 values are dense (most codes near 1 occur in 6k
    outputs), so finding each wrong value somewhere in the golden is no evidence; an exact reordering of the
    golden's values at those positions is, and it is proven from the run alone."""
    explained = _explain(
        SHUFFLE_REFERENCE.format(extra="").replace("pixel_shuffle(x, 2)", "pixel_shuffle(x * 2, 2)"),
        SHUFFLE_CANDIDATE.replace("SUB", "j * 2 + i").format(scale=" * 2.0"),
    )
    primary = _primary(explained)
    assert (primary.pattern, primary.tested) == ("layout_mismatch", "proven"), explained.summary
    assert primary.evidence["permutation"] is True and "reordered" in primary.summary


def test_copies_with_swapped_sub_indices_copy_the_wrong_input_elements():
    """The same swap in a pure copy: every output is an input value, so values from elsewhere could also be a
    wrong window of a max; tagging every input element shows the reference copies by position and the
    candidate copies other elements."""
    explained = _explain(
        SHUFFLE_REFERENCE.format(extra=""), SHUFFLE_CANDIDATE.replace("SUB", "j * 2 + i").format(scale="")
    )
    primary = _primary(explained)
    assert (primary.pattern, primary.tested) == ("layout_mismatch", "confirmed"), explained.summary


def test_a_wrong_scale_on_a_shuffle_is_not_misplaced_values():
    explained = _explain(
        SHUFFLE_REFERENCE.format(extra=" * 1.5"), SHUFFLE_CANDIDATE.replace("SUB", "i * 2 + j").format(scale=" * 1.25")
    )
    assert all(d.pattern != "layout_mismatch" or d.tested == "refuted" for d in explained.diagnoses), explained.summary


# --- copies of the wrong input elements: a batch offset with the wrong channel count ----------------------


def test_a_wrong_batch_stride_copies_the_wrong_input_elements():
    """Samples past the first read planes of the wrong sample: values repeat, so the outputs are no
    reordering; tagging every input element with its own value shows where each output copies from."""
    with without_experiments("access_trace", "repair_search"):  # they name the line first; this tests copy_sources
        explained = _explain(
            SHUFFLE_REFERENCE.format(extra=""),
            SHUFFLE_CANDIDATE.replace("SUB", "i * 2 + j").replace("n * C * 4", "n * C").format(scale=""),
        )
    primary = _primary(explained)
    assert (primary.pattern, primary.tested) == ("layout_mismatch", "confirmed"), explained.summary
    copied = next(e for e in explained.experiments if e.id == "copy_sources")
    assert copied.confirms == ["layout_mismatch"] and "where the reference copies input" in copied.finding


# --- an input read in another memory layout ----------------------------------------------------------------

MATVEC_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, w, x):
        return w @ x


def get_inputs():
    return [torch.randn(37, 53), torch.randn(53)]


def get_init_inputs():
    return []
"""

MATVEC_CANDIDATE = (
    HEADER
    + """

@triton.jit
def matvec_kernel(w_ptr, x_ptr, out_ptr, M, K, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs
        w = tl.load(w_ptr + W_INDEX, mask=k < K, other=0.0)
        x = tl.load(x_ptr + k, mask=k < K, other=0.0)
        acc += TERM
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, w, x):
        M, K = w.shape
        out = torch.empty(M, device=w.device, dtype=w.dtype)
        matvec_kernel[(M,)](w, x, out, M, K, BLOCK_K=32)
        return out
"""
)


def test_a_weight_read_transposed_is_an_input_layout_error():
    """The kernel walks w as if it were stored (K, M): stored that way, the candidate passes."""
    with without_experiments("access_trace", "repair_search"):  # they name the line first; this tests input_layout
        explained = _explain(
            MATVEC_REFERENCE, MATVEC_CANDIDATE.replace("W_INDEX", "k * M + row").replace("TERM", "w * x")
        )
    primary = _primary(explained)
    assert (primary.pattern, primary.tested) == ("layout_mismatch", "confirmed"), explained.summary
    layout = next(e for e in explained.experiments if e.id == "input_layout")
    assert layout.confirms == ["layout_mismatch"] and "input 0" in layout.finding
    assert "(dim 1 [53], dim 0 [37])" in layout.finding
    fixes = suggest_fix(FixRequest(run_id=explained.run_id, verify=True)).fixes
    assert fixes[0].fix == "fix_layout" and fixes[0].verified, fixes[0]
    assert "w = w.permute(1, 0).contiguous().reshape(w.shape)" in (fixes[0].patched_source or "")


def test_a_wrong_term_is_no_layout_error():
    explained = _explain(
        MATVEC_REFERENCE, MATVEC_CANDIDATE.replace("W_INDEX", "row * K + k").replace("TERM", "w * (x + 1.0)")
    )
    assert _primary(explained).pattern == "formula_error", explained.summary
    layout = next((e for e in explained.experiments if e.id == "input_layout"), None)
    assert layout is not None and not layout.confirms and "no other memory layout" in layout.finding


# --- index outputs that break ties the other way -----------------------------------------------------------

ARGMAX_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=1)


def get_inputs():
    return [torch.randint(0, 40, (64, 300), dtype=torch.int32)]  # many ties for the maximum


def get_init_inputs():
    return []
"""

ARGMAX_CANDIDATE = (
    HEADER
    + """

@triton.jit
def argmax_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=-1)
    best = tl.max(x, axis=0)
    hit = (x == best) & (offs < N)
    idx = PICK
    tl.store(out_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def forward(self, x):
        rows, n = x.shape
        out = torch.empty(rows, device=x.device, dtype=torch.int64)
        argmax_kernel[(rows,)](x, out, n, BLOCK=512)
        return out
"""
)


@pytest.mark.parametrize(
    "pick, proven",
    [("tl.max(tl.where(hit, offs, -1), axis=0)", True), ("tl.min(tl.where(hit, offs, N), axis=0) + 1", False)],
    ids=["last of the tied maxima", "off by one"],
)
def test_an_index_that_breaks_ties_the_other_way(pick, proven):
    explained = _explain(ARGMAX_REFERENCE, ARGMAX_CANDIDATE.replace("PICK", pick))
    tie = next((d for d in explained.diagnoses if "tie broken" in d.summary), None)
    if proven:
        assert tie is not None and tie.tested == "proven" and _primary(explained) is tie, explained.summary
        assert "a later index every time" in tie.summary
    else:  # x[i + 1] is rarely the maximum too: no tie
        assert tie is None, explained.summary


# --- a max over the wrong window copies other input elements too: no layout error -------------------------

MAXPOOL_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.max_pool1d(x, kernel_size=4, stride=2)


def get_inputs():
    return [torch.randn(8, 301)]


def get_init_inputs():
    return []
"""

MAXPOOL_CANDIDATE = (
    HEADER
    + """

@triton.jit
def maxpool_kernel(x_ptr, out_ptr, L, L_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    o = tl.arange(0, BLOCK)
    keep = o < L_out
    best = tl.full((BLOCK,), float("-inf"), tl.float32)
    for k in range(0, WINDOW):
        x = tl.load(x_ptr + row * L + o * 2 + k, mask=keep, other=float("-inf"))
        best = tl.maximum(best, x)
    tl.store(out_ptr + row * L_out + o, best, mask=keep)


class ModelNew(nn.Module):
    def forward(self, x):
        rows, L = x.shape
        L_out = (L - 4) // 2 + 1
        out = torch.empty(rows, L_out, device=x.device, dtype=x.dtype)
        maxpool_kernel[(rows,)](x, out, L, L_out, BLOCK=256)
        return out
"""
)


def test_a_max_over_a_short_window_is_not_a_layout_error():
    """Every output of a max pool is an input value, and so is every wrong one of a window one short: values
    from elsewhere, chosen by value. Neither the misplaced-values proof nor copy_sources may call it layout."""
    # seeds on which the lanes' agreement once passed by chance (8 right samples, half agreeing): called layout
    explained = _explain(MAXPOOL_REFERENCE, MAXPOOL_CANDIDATE.replace("WINDOW", "3"), seeds=[4])
    assert all(d.pattern != "layout_mismatch" or d.tested == "refuted" for d in explained.diagnoses), explained.summary
    copied = next((e for e in explained.experiments if e.id == "copy_sources"), None)
    assert copied is None or ("picks its elements by value" in copied.finding and not copied.confirms), copied
    correct = MAXPOOL_CANDIDATE.replace("WINDOW", "4")
    assert run_accuracy(RunAccuracyRequest(reference=MAXPOOL_REFERENCE, candidate=correct, backend="cpu")).verdict == (
        "pass"
    )


def test_a_rounding_step_on_a_quantised_golden_is_not_misplaced_values():
    """A quantised output (per-row k * s) truncated instead of rounded holds (k - 1) * s: a golden value of the
    same row, by construction. Reflected about the golden, (k + 1) * s is one too: the lattice, not a
    permutation; a transposed tile of the same values still is one."""
    import torch

    from tools.diagnosis import misplaced

    generator = torch.Generator().manual_seed(0)
    x = torch.randn(80, 600, generator=generator, dtype=torch.float64)
    scale = x.abs().amax(dim=1, keepdim=True) / 127
    golden = torch.round(x / scale) * scale
    truncated = (torch.trunc(x / scale) * scale).to(torch.float32)
    assert not misplaced.convincing(misplaced.find(truncated, golden, golden.to(torch.float32)))
    smooth = torch.randn(64, 400, generator=generator, dtype=torch.float64)
    moved = smooth.clone()
    moved[:, :16] = smooth[:, 16:32]
    moved[:, 16:32] = smooth[:, :16]
    assert misplaced.convincing(misplaced.find(moved.to(torch.float32), smooth, smooth.to(torch.float32)))
