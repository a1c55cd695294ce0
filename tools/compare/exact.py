"""Integer and bool outputs: bit-exact, whatever the standard (docs/comparator.md)."""

from __future__ import annotations

import torch

from tools import thresholds as T
from tools.compare.chunks import WorstTracker, chunk_ranges, flat
from tools.compare.options import CompareOptions
from tools.compare.report import describe_worst, fmt, fmt_count, worst_elements
from tools.models.compare import CompareResult, CpuControl, Dimensions


def _as_comparable(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.float64) if t.is_floating_point() else t.to(torch.int64)


def compare_exact(
    name: str,
    actual: torch.Tensor,
    golden: torch.Tensor,
    cpu: torch.Tensor | None,
    dtype_name: str,
    options: CompareOptions,
) -> CompareResult:
    a_flat, g_flat = flat(actual), flat(golden)
    c_flat = flat(cpu) if cpu is not None else None
    mismatches = cpu_mismatches = 0
    diff_sum = 0.0
    diff_max = cpu_diff_max = 0.0
    rel_sum = rel_max = 0.0
    worst = WorstTracker(options.top_k)
    for start, end in chunk_ranges(a_flat.numel(), options.chunk):
        a = _as_comparable(a_flat[start:end])
        g = _as_comparable(g_flat[start:end])
        diff = (a.to(torch.float64) - g.to(torch.float64)).abs()
        rel = diff / (g.to(torch.float64).abs() + T.RELATIVE_ERROR_EPS)
        wrong = a != g
        mismatches += int(torch.count_nonzero(wrong))
        diff_sum += float(diff.sum())
        diff_max = max(diff_max, float(diff.max()))
        rel_sum += float(rel.sum())
        rel_max = max(rel_max, float(rel.max()))
        # bool mismatches have diff 1; any mismatch outranks every match
        worst.add((diff + 1.0) * wrong, start)
        if c_flat is not None:
            c = _as_comparable(c_flat[start:end])
            cpu_mismatches += int(torch.count_nonzero(c != g))
            cpu_diff_max = max(cpu_diff_max, float((c.to(torch.float64) - g.to(torch.float64)).abs().max()))

    total = a_flat.numel()
    passed = mismatches == 0
    result = CompareResult(
        name=name,
        standard=options.standard,  # type: ignore[arg-type]
        passed=passed,
        dtype=dtype_name,
        threshold=0.0,
        mere=rel_sum / total if total else 0.0,
        mare=rel_max,
        max_diff=diff_max,
        mean_diff=diff_sum / total if total else 0.0,
        mismatch_count=mismatches,
        total_count=total,
        mismatch_ratio=mismatches / total if total else 0.0,
        summary="",
        shape=list(actual.shape),
        golden_dtype=str(golden.dtype).removeprefix("torch."),
        dimensions=Dimensions(exact=passed),
        cpu_control=(
            CpuControl(
                mere=0.0,
                mare=0.0,
                max_diff=cpu_diff_max,
                normal_passed=cpu_mismatches == 0,
                mismatch_count=cpu_mismatches,
                nan_count=0,
            )
            if c_flat is not None
            else None
        ),
        worst=worst_elements(worst, actual, golden, cpu, ("exact",), None),
        thresholds_used={"rule": "exact"},
    )
    head = f"{'PASS' if passed else 'FAIL'} exact {dtype_name} {name}"
    if total == 0:
        result.summary = f"{head}: nothing to compare (0 elements)"
    elif passed:
        result.summary = f"{head}: all {fmt_count(total)} elements equal"
    else:
        result.summary = (
            f"{head}: Mismatched elements: {fmt_count(mismatches)} / {fmt_count(total)} "
            f"({result.mismatch_ratio:.1%}); greatest absolute difference {fmt(diff_max)}."
            f"{describe_worst(result.worst)}"
        )
        if c_flat is not None and cpu_mismatches:
            result.warnings.append(
                f"the CPU same-precision control differs from the golden at {cpu_mismatches} "
                f"element(s) too: the golden's rounding may differ from the op's"
            )
    return result
