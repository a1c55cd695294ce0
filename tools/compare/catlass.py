"""The CATLASS standard (docs/comparator.md, "The other standards").

CompareData: an element errs when |actual - expected| > rtol * max(1, |expected|), rtol
1/256 below computeNum 2048 and 1/128 from there (bfloat16: 1/128 and 1/64). Passes with no
error indices. ErrorMetrics: MARE, MERE and RMSE of the candidate and of the CPU
same-precision output, both against the golden; the ratios candidate / CPU must stay within
MARE <= 5, MERE <= 1.5, RMSE <= 1.5. Both must hold; without a CPU output only CompareData runs.

Special values follow the common rules rather than C++ arithmetic (where NaN <= x is false, so
even matching NaNs and same-sign Inf pairs would count as errors): NaN positions must match, a
same-sign Inf pair matches, a one-sided Inf is an error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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
from tools.compare.options import CompareOptions
from tools.compare.report import describe_worst, fmt, fmt_count, worst_elements
from tools.models.common import Number
from tools.models.compare import CatlassDetails, CompareResult, CpuControl, Dimensions

_MAX_INDICES = 100


@dataclass
class _Metrics:
    """Sums for MARE / MERE / RMSE over the positions where both sides are finite."""

    count: int = 0
    rel_sum: float = 0.0
    rel_max: float = 0.0
    sq_sum: float = 0.0
    diff_sum: float = 0.0
    diff_max: float = 0.0
    nan_count: int = 0

    def add(self, x: torch.Tensor, g: torch.Tensor) -> None:
        self.nan_count += int(torch.count_nonzero(isnan(x)))
        x, g, finite = zero_nonfinite(x, g)
        diff = (x - g).abs_()
        rel = diff / (g.abs() + T.RELATIVE_ERROR_EPS)
        self.count += x.numel() if finite is None else int(torch.count_nonzero(finite))
        self.rel_sum += float(rel.sum(dtype=torch.float64))
        self.rel_max = max(self.rel_max, float(rel.amax()))
        wide = diff.to(torch.float64)  # squares of large float32 errors overflow float32
        self.sq_sum += float(torch.dot(wide, wide))
        self.diff_sum += float(diff.sum(dtype=torch.float64))
        self.diff_max = max(self.diff_max, float(diff.amax()))

    @property
    def mere(self) -> float:
        return self.rel_sum / self.count if self.count else 0.0

    @property
    def rmse(self) -> float:
        return math.sqrt(self.sq_sum / self.count) if self.count else 0.0


def _compare_data_errors(x, g, rtol):
    """(error mask, |diff| / bound) of CompareData's per-element rule plus the common NaN/Inf rules."""
    return tolerance_errors(x, g, g.abs().clamp_(min=1.0).mul_(rtol))


def _ratio(cand: float, cpu: float, floor: float) -> float:
    if cand == 0:
        return 0.0
    return cand / max(cpu, floor)


def compare_catlass(
    name: str,
    actual: torch.Tensor,
    golden: torch.Tensor,
    cpu: torch.Tensor | None,
    dtype_name: str,
    options: CompareOptions,
) -> CompareResult:
    storage = T.STORAGE_DTYPES[dtype_name]
    rtol = T.catlass_rtol(dtype_name, options.compute_num)
    ctype = compute_dtype(storage)
    a_flat, g_flat = flat(actual), flat(golden)
    c_flat = flat(cpu) if cpu is not None else None
    cand, ctrl = _Metrics(), _Metrics()
    errors, cpu_errors, nan_mis = 0, 0, 0
    indices: list[int] = []
    worst = WorstTracker(options.top_k)
    for start, end in chunk_ranges(a_flat.numel(), options.chunk):
        g = g_flat[start:end].to(ctype)
        a = a_flat[start:end].to(ctype)
        err, score = _compare_data_errors(a, g, rtol)
        errors += int(torch.count_nonzero(err))
        nan_mis += int(torch.count_nonzero(isnan(a) ^ isnan(g)))
        if len(indices) < _MAX_INDICES:
            found = torch.nonzero(err).flatten()[: _MAX_INDICES - len(indices)]
            indices.extend((found + start).tolist())
        worst.add(score, start)
        cand.add(a, g)
        if c_flat is not None:
            c = c_flat[start:end].to(ctype)
            cpu_errors += int(torch.count_nonzero(_compare_data_errors(c, g, rtol)[0]))
            ctrl.add(c, g)

    metrics: dict[str, Number] | None = None
    metrics_ok = None
    if c_flat is not None:
        eps = T.cpu_error_floor(storage)
        rms_floor = eps * math.sqrt(ctrl.sq_sum / ctrl.count) if ctrl.count else eps
        ratios = {
            "mare": _ratio(cand.rel_max, ctrl.rel_max, eps),
            "mere": _ratio(cand.mere, ctrl.mere, eps),
            "rmse": _ratio(cand.rmse, ctrl.rmse, max(rms_floor, 1e-30)),
        }
        metrics = {
            "mare": cand.rel_max,
            "mere": cand.mere,
            "rmse": cand.rmse,
            "cpu_mare": ctrl.rel_max,
            "cpu_mere": ctrl.mere,
            "cpu_rmse": ctrl.rmse,
            **{f"{k}_ratio": v for k, v in ratios.items()},
        }
        metrics_ok = all(ratios[k] <= T.CATLASS_METRIC_LIMITS[k] for k in ratios)

    total = a_flat.numel()
    passed = errors == 0 and metrics_ok is not False
    result = CompareResult(
        name=name,
        standard="catlass",
        passed=passed,
        dtype=dtype_name,
        threshold=rtol,
        mere=cand.mere,
        mare=cand.rel_max,
        max_diff=cand.diff_max,
        mean_diff=cand.diff_sum / cand.count if cand.count else 0.0,
        mismatch_count=errors,
        total_count=total,
        mismatch_ratio=errors / total if total else 0.0,
        summary="",
        shape=list(actual.shape),
        golden_dtype=str(golden.dtype).removeprefix("torch."),
        nan_mismatch_count=nan_mis,
        dimensions=Dimensions(tolerance=errors == 0, error_metrics=metrics_ok, nan_positions=nan_mis == 0),
        cpu_control=(
            CpuControl(
                mere=ctrl.mere,
                mare=ctrl.rel_max,
                max_diff=ctrl.diff_max,
                normal_passed=cpu_errors == 0,
                mismatch_count=cpu_errors,
                nan_count=ctrl.nan_count,
            )
            if c_flat is not None
            else None
        ),
        worst=worst_elements(worst, actual, golden, cpu, ("tolerance",), None),
        thresholds_used={"rtol": rtol, **T.CATLASS_METRIC_LIMITS},
        details=CatlassDetails(
            rtol=rtol,
            compute_num=options.compute_num,
            compare_data_error_count=errors,
            error_indices=indices,
            metrics=metrics,
            metric_limits=T.CATLASS_METRIC_LIMITS,
        ),
    )
    if options.compute_num is None:
        result.warnings.append(
            f"computeNum unknown: assumed < {T.CATLASS_COMPUTE_NUM_SPLIT} (rtol {fmt(rtol)}, the "
            f"stricter one); pass compute_num (e.g. K of a matmul) for the intended tolerance"
        )
    if c_flat is None:
        result.warnings.append("no CPU same-precision output: ErrorMetrics ratios not checked")
    elif cpu_errors:
        result.warnings.append(
            f"the CPU same-precision output fails CompareData too ({cpu_errors} errors): "
            f"the tolerance, not necessarily the kernel, is at issue"
        )
    head = f"{'PASS' if passed else 'FAIL'} catlass {dtype_name} {name}"
    parts = [f"CompareData {fmt_count(errors)} / {fmt_count(total)} errors (rtol {fmt(rtol)})"]
    if metrics is not None:
        parts.append(
            "ErrorMetrics ratios MARE {mare_ratio:.3g} (<=5), MERE {mere_ratio:.3g} (<=1.5), "
            "RMSE {rmse_ratio:.3g} (<=1.5)".format(**metrics)
        )
    result.summary = f"{head}: {'; '.join(parts)}." + ("" if passed else describe_worst(result.worst))
    return result
