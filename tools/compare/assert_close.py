"""The triton-ascend tutorial's accuracy standard (docs/comparator.md, "The other standards").

torch.testing.assert_close semantics with per-dtype tolerances: an element is close when
|actual - expected| <= atol + rtol * |expected|, or both are equal (same-sign Inf), or both
are NaN (equal_nan=True). float16 1e-3/1e-3, bfloat16 1e-3/1e-3, float32 1e-4/1e-4.

The tutorial's expected value is a same-dtype torch reference; here it is the FP64 golden
rounded to the output dtype (what a perfect same-dtype reference returns). The arithmetic is
done in float32 for <=16-bit outputs (bfloat16 included, as the tutorial asks) and float64 above.
"""

from __future__ import annotations

import torch

from tools import thresholds as T
from tools.compare.chunks import (
    WorstTracker,
    chunk_ranges,
    compute_dtype,
    flat,
    isnan,
    tolerance_errors,
    zero_nonfinite,
)
from tools.compare.options import CompareInputError, CompareOptions
from tools.compare.report import describe_worst, fmt, fmt_count, worst_elements
from tools.models.compare import AssertCloseDetails, CompareResult, CpuControl, Dimensions


def _tolerances(dtype_name: str) -> tuple[float, float]:
    key = "float32" if dtype_name == "hifloat32" else dtype_name
    if key not in T.ASSERT_CLOSE_TOLERANCES:
        raise CompareInputError(
            f"the assert_close standard defines tolerances for float16, bfloat16, float32 and "
            f"integer/bool outputs only, not {dtype_name}; use standard='three_dim'"
        )
    return T.ASSERT_CLOSE_TOLERANCES[key]


def _close(x, e, rtol, atol):
    """(not-close mask, violation score) for one chunk: |x - e| <= atol + rtol * |e|."""
    return tolerance_errors(x, e, e.abs().mul_(rtol).add_(atol))


def compare_assert_close(
    name: str,
    actual: torch.Tensor,
    golden: torch.Tensor,
    cpu: torch.Tensor | None,
    dtype_name: str,
    options: CompareOptions,
) -> CompareResult:
    rtol, atol = _tolerances(dtype_name)
    storage = T.STORAGE_DTYPES[dtype_name]
    a_flat, g_flat = flat(actual), flat(golden)
    c_flat = flat(cpu) if cpu is not None else None
    worst = WorstTracker(options.top_k)
    errors = cpu_errors = nan_mis = cpu_nan = 0
    greatest_abs = greatest_rel = 0.0
    rel_sum, rel_max, diff_sum, diff_max, finite = 0.0, 0.0, 0.0, 0.0, 0
    # the tutorial compares bfloat16 in float32 (an overflowing difference is an error there too)
    ctype = torch.float32 if storage == torch.bfloat16 else compute_dtype(storage)
    for start, end in chunk_ranges(a_flat.numel(), options.chunk):
        e = g_flat[start:end].to(storage).to(ctype)
        a = a_flat[start:end].to(ctype)
        wrong, score = _close(a, e, rtol, atol)
        errors += int(torch.count_nonzero(wrong))
        nan_mis += int(torch.count_nonzero(isnan(a) ^ isnan(e)))
        worst.add(score, start)
        a, e, both = zero_nonfinite(a, e)
        diff = (a - e).abs_()
        rel = diff / (e.abs() + T.RELATIVE_ERROR_EPS)
        greatest_abs = max(greatest_abs, float((diff * wrong).amax()))
        greatest_rel = max(greatest_rel, float((rel * wrong).amax()))
        rel_sum += float(rel.sum(dtype=torch.float64))
        rel_max = max(rel_max, float(rel.amax()))
        diff_sum += float(diff.sum(dtype=torch.float64))
        diff_max = max(diff_max, float(diff.amax()))
        finite += a.numel() if both is None else int(torch.count_nonzero(both))
        if c_flat is not None:
            c = c_flat[start:end].to(ctype)
            cpu_errors += int(torch.count_nonzero(_close(c, e, rtol, atol)[0]))
            cpu_nan += int(torch.count_nonzero(isnan(c)))

    total = a_flat.numel()
    passed = errors == 0
    result = CompareResult(
        name=name,
        standard="assert_close",
        passed=passed,
        dtype=dtype_name,
        threshold=rtol,
        mere=rel_sum / finite if finite else 0.0,
        mare=rel_max,
        max_diff=diff_max,
        mean_diff=diff_sum / finite if finite else 0.0,
        mismatch_count=errors,
        total_count=total,
        mismatch_ratio=errors / total if total else 0.0,
        summary="",
        shape=list(actual.shape),
        golden_dtype=str(golden.dtype).removeprefix("torch."),
        nan_mismatch_count=nan_mis,
        dimensions=Dimensions(tolerance=passed, nan_positions=nan_mis == 0),
        cpu_control=(
            CpuControl(
                mere=0.0,
                mare=0.0,
                max_diff=0.0,
                normal_passed=cpu_errors == 0,
                mismatch_count=cpu_errors,
                nan_count=cpu_nan,
            )
            if c_flat is not None
            else None
        ),
        worst=worst_elements(worst, actual, golden, cpu, ("tolerance",), None, golden_as=storage),
        thresholds_used={"rtol": rtol, "atol": atol},
        details=AssertCloseDetails(
            rtol=rtol,
            atol=atol,
            compared_in=str(ctype).removeprefix("torch."),
            greatest_abs_diff=greatest_abs,
            greatest_rel_diff=greatest_rel,
        ),
    )
    head = f"{'PASS' if passed else 'FAIL'} assert_close {dtype_name} {name}"
    if passed:
        result.summary = f"{head}: all {fmt_count(total)} elements within rtol {fmt(rtol)}, atol {fmt(atol)}"
    else:
        result.summary = (
            f"{head}: Mismatched elements: {fmt_count(errors)} / {fmt_count(total)} "
            f"({result.mismatch_ratio:.1%}); greatest absolute difference {fmt(greatest_abs)}, "
            f"greatest relative difference {fmt(greatest_rel)} (rtol {fmt(rtol)}, atol {fmt(atol)})."
            f"{describe_worst(result.worst)}"
        )
    if cpu_errors:
        result.warnings.append(
            f"the CPU same-precision output fails the same tolerance at {cpu_errors} element(s): "
            f"the tolerance, not necessarily the kernel, is at issue"
        )
    return result
