"""The default standard: the three-dimension comparator of docs/comparator.md.

Every valid position belongs to exactly one domain, judged by that domain's rule:

* NaN: actual and golden must be NaN at the same positions; matching NaNs drop out.
* Inf: +-Inf, and golden values beyond the dtype's range (they would be Inf in that dtype), are
  replaced by +-(dtype max) before comparing, so a same-sign Inf pair matches and a one-sided
  Inf is judged as the dtype's largest value.
* small value: |golden| < small_value_threshold. An element errs when
  |actual - golden| > small_value_error. Passes when errors / max(cpu errors, 1) <= 2.
* cancellation: not small, |golden| < cancel_boundary, |output| < cancel_zero_threshold.
  The condition reads the output, so the candidate and the CPU control each have their own
  cancellation positions. An element errs when its relative error > mare_threshold. Passes when
  errors / max(cpu errors, 1) <= 2.
* normal range: every other valid position. MERE < threshold and MARE < 10 x threshold; or,
  with normal_range="cpu_relative" and a sound CPU control, within 1.5x / 5x of the control's
  own MERE / MARE and never beyond 10x the default thresholds.

Choice where the spec is silent: MERE/MARE cover the normal range only, not the small-value and
cancellation positions that have their own rules. Otherwise the spec's own boundary case "NPU=0,
CPU=0, golden=1e-3 -> pass" could not hold (its relative error is 1, far above any MARE bound).

Accuracy: bfloat16 and wider dtypes are evaluated in float64. float16 and float8 are evaluated
in float32 (exact inputs; the golden rounded once to float32) and summed in float64, so MERE and
MARE are within 2**-24 * (1 + 5 x their value) of the exact float64 evaluation (about 6e-8 at
float16's threshold): a verdict can differ from it only that close to a threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import torch

from tools import thresholds as T
from tools.compare.chunks import WorstTracker, chunk_ranges, compute_dtype, flat, has_nan, isnan
from tools.compare.options import CompareOptions
from tools.compare.report import describe_worst, fmt, fmt_count, worst_elements
from tools.models.compare import CompareResult, CpuControl, Dimensions, Domain, SignedBias

_DOMAINS: tuple[Domain, ...] = ("normal", "small_value", "cancellation", "nan")


@dataclass
class _SideTotals:
    """Running sums for one output (candidate or CPU control) against the golden."""

    valid: int = 0
    normal: int = 0
    rel_sum: float = 0.0
    rel_max: float = 0.0
    diff_sum: float = 0.0
    diff_max: float = 0.0
    small_total: int = 0
    small_errors: int = 0
    cancel_total: int = 0
    cancel_errors: int = 0
    nan_count: int = 0
    nan_mismatches: int = 0
    saturated: int = 0
    mismatches: int = 0
    nonzero: int = 0
    toward_zero: int = 0
    positive: int = 0

    def add(self, other: dict) -> None:
        for f in fields(self):
            value = other[f.name]
            if f.name.endswith("_max"):
                setattr(self, f.name, max(getattr(self, f.name), value))
            else:
                setattr(self, f.name, getattr(self, f.name) + value)

    @property
    def mere(self) -> float:
        # the float64 sum of float32 terms can still round the mean a hair above the max
        return min(self.rel_sum / self.normal, self.rel_max) if self.normal else 0.0

    @property
    def mean_diff(self) -> float:
        return self.diff_sum / self.valid if self.valid else 0.0


class _GoldenChunk:
    """What both sides need of one golden chunk, computed once."""

    def __init__(self, g: torch.Tensor, row: T.DtypeThresholds, dmax: float):
        self.any_nan = has_nan(g)
        self.nan = isnan(g) if self.any_nan else None
        self.saturated = g.abs() > dmax
        g = g.clamp(-dmax, dmax)
        if self.any_nan:
            g = g.nan_to_num(0.0)
        self.g = g
        self.absg = g.abs()
        self.inv = 1.0 / (self.absg + T.RELATIVE_ERROR_EPS)
        self.small = self.absg < row.small_value
        # "golden near the precision boundary": the golden half of the cancellation condition
        self.band = ~self.small & (self.absg < row.cancel_boundary)


def _judge_chunk(x, gc: _GoldenChunk, row: T.DtypeThresholds, dmax: float, worst=None, offset=0):
    """Judge one chunk of one side against the golden; returns the chunk's sums.

    Written for speed on the CPU: masks are combined with & and counted with count_nonzero,
    masked sums multiply by the mask, and NaN handling only runs for chunks that hold NaN
    (torch.where and float32 isnan are ~20x slower than arithmetic there).
    """
    x_has_nan = has_nan(x)
    any_nan = gc.any_nan or x_has_nan
    nan_x = isnan(x) if x_has_nan else torch.zeros_like(x, dtype=torch.bool)
    nan_g = gc.nan if gc.nan is not None else torch.zeros_like(x, dtype=torch.bool)
    sat_x = x.abs() > dmax
    x = x.clamp(-dmax, dmax)
    if any_nan:
        valid = ~(nan_x | nan_g)
        x = x.nan_to_num(0.0)  # invalid positions drop out of every mask below
        small, band = gc.small & valid, gc.band & valid
    else:
        valid = None
        small, band = gc.small, gc.band
    diff = (x - gc.g).abs_()
    rel = diff * gc.inv
    xabs = x.abs()
    cancel = band & (xabs < row.cancel_zero)
    normal = ~(small | cancel)
    if valid is not None:
        normal &= valid
    mare = row.mare

    small_err = small & (diff > row.small_value_error)
    cancel_err = cancel & (rel > mare)
    normal_err = normal & (rel >= mare)
    mismatch = small_err | cancel_err | normal_err
    nan_mis = None
    if any_nan:
        nan_mis = nan_x ^ nan_g
        mismatch |= nan_mis
    normal_rel = rel * normal
    nonzero = normal & (diff > 0)

    if worst is not None:
        score = rel * (1.0 / mare)
        score += small * (diff * (1.0 / row.small_value_error) - score)
        if nan_mis is not None:
            score[nan_mis] = math.inf

        def domain(idx):
            code = small[idx].long() + 2 * cancel[idx].long()
            return code if nan_mis is None else torch.where(nan_mis[idx], 3, code)

        worst.add(score, offset, domain)

    def count(mask) -> int:
        return int(torch.count_nonzero(mask))

    saturated = sat_x ^ gc.saturated
    return {
        "valid": count(valid) if valid is not None else x.numel(),
        "normal": count(normal),
        "rel_sum": float(normal_rel.sum(dtype=torch.float64)),
        "rel_max": float(normal_rel.amax()),
        "diff_sum": float(diff.sum(dtype=torch.float64)),
        "diff_max": float(diff.amax()),
        "small_total": count(small),
        "small_errors": count(small_err),
        "cancel_total": count(cancel),
        "cancel_errors": count(cancel_err),
        "nan_count": count(nan_x) if any_nan else 0,
        "nan_mismatches": count(nan_mis) if nan_mis is not None else 0,
        "saturated": count(saturated & valid if valid is not None else saturated),
        "mismatches": count(mismatch),
        "nonzero": count(nonzero),
        "toward_zero": count(nonzero & (xabs < gc.absg)),
        "positive": count(nonzero & (x > gc.g)),
    }


def _ratio(npu: int, cpu: int) -> float:
    return npu / max(cpu, 1)


@dataclass
class _NormalRange:
    """The normal-range verdict and the rule that gave it, in words with its numbers."""

    passed: bool
    rule: str  # e.g. "MERE 1e-4 < 9.77e-04, MARE 2e-3 < 0.00977"
    warning: str | None = None


def _cpu_licence_problem(ctrl: _SideTotals, dtype_name: str) -> str | None:
    """Why the CPU control cannot license cpu_relative, or None when it can.

    A relaxation to the CPU's own error is only evidence when the control is a real result of
    this precision: finite and NaN where the golden is, and itself within the bound.
    """
    mere_bound, mare_bound = T.cpu_relative_bounds(dtype_name)
    if ctrl.nan_mismatches:
        return (
            f"the CPU control's NaN positions differ from the golden's at {fmt_count(ctrl.nan_mismatches)} element(s)"
        )
    if ctrl.saturated:
        return f"the CPU control and the golden disagree about Inf / overflow at {fmt_count(ctrl.saturated)} element(s)"
    if ctrl.normal == 0:
        return "the CPU control has no normal-range element to measure its error on"
    if not (ctrl.mere < mere_bound and ctrl.rel_max < mare_bound):
        return (
            f"the CPU control's own error (MERE {fmt(ctrl.mere)}, MARE {fmt(ctrl.rel_max)}) is beyond "
            f"{T.CPU_RELATIVE_MAX_FACTOR:g}x the default thresholds ({fmt(mere_bound)}, {fmt(mare_bound)}): "
            f"it is wrong itself, not evidence of what {dtype_name} can do"
        )
    return None


def _absolute_rule(cand: _SideTotals, ctrl: _SideTotals | None, row: T.DtypeThresholds) -> _NormalRange:
    mere, mare = cand.mere, cand.rel_max
    if mere < row.precision and mare < row.mare:
        return _NormalRange(True, f"MERE {fmt(mere)} < {fmt(row.precision)}, MARE {fmt(mare)} < {fmt(row.mare)}")
    cpu = f" (cpu MERE {fmt(ctrl.mere)}, MARE {fmt(ctrl.rel_max)})" if ctrl is not None else ""
    if mare >= row.mare:
        return _NormalRange(False, f"normal range: MARE {fmt(mare)} >= {fmt(row.mare)}{cpu}")
    return _NormalRange(
        False,
        f"normal range: MERE {fmt(mere)} >= {fmt(row.precision)}{cpu}, the mean error: no single "
        f"element exceeds MARE's bound",
    )


def _cpu_relative_rule(cand: _SideTotals, ctrl: _SideTotals, dtype_name: str, storage: torch.dtype) -> _NormalRange:
    """CATLASS ErrorMetrics style: MERE within 1.5x and MARE within 5x of the CPU control's, and
    both within CPU_RELATIVE_MAX_FACTOR x the default thresholds, whatever the control does.

    A CPU error of exactly zero is floored (thresholds.cpu_error_floor) to avoid dividing by 0.
    """
    floor = T.cpu_error_floor(storage)
    limits = T.CATLASS_METRIC_LIMITS
    mere_bound, mare_bound = T.cpu_relative_bounds(dtype_name)
    mere, mare = cand.mere, cand.rel_max
    checks = [
        (
            mere / max(ctrl.mere, floor) <= limits["mere"],
            f"MERE {fmt(mere)} <= {limits['mere']:g} x cpu {fmt(ctrl.mere)}",
        ),
        (mere < mere_bound, f"MERE {fmt(mere)} < {fmt(mere_bound)}"),
        (
            mare / max(ctrl.rel_max, floor) <= limits["mare"],
            f"MARE {fmt(mare)} <= {limits['mare']:g} x cpu {fmt(ctrl.rel_max)}",
        ),
        (mare < mare_bound, f"MARE {fmt(mare)} < {fmt(mare_bound)}"),
    ]
    bound = f"{T.CPU_RELATIVE_MAX_FACTOR:g}x the default thresholds"
    if all(ok for ok, _ in checks):
        return _NormalRange(
            True,
            f"normal range by cpu_relative: {', '.join(text for _, text in checks)} ({bound})",
            "normal range judged relative to the CPU control (cpu_relative, bounded at "
            f"{bound}), not by the absolute thresholds",
        )
    broken = "; ".join("not " + text for ok, text in checks if not ok)
    return _NormalRange(False, f"normal range (cpu_relative, bounded at {bound}): {broken}")


def _judge_normal(cand, ctrl, has_cpu, row, dtype_name, storage, options) -> _NormalRange:
    absolute = _absolute_rule(cand, ctrl if has_cpu else None, row)
    if absolute.passed or options.normal_range != "cpu_relative":
        return absolute
    problem = "there is no CPU control" if not has_cpu else _cpu_licence_problem(ctrl, dtype_name)
    if problem is not None:
        return _NormalRange(
            False,
            f"{absolute.rule}; cpu_relative not applied: {problem}",
            f"normal_range='cpu_relative' was asked for but not applied ({problem}): judged by the absolute thresholds",
        )
    return _cpu_relative_rule(cand, ctrl, dtype_name, storage)


def compare_three_dim(
    name: str,
    actual: torch.Tensor,
    golden: torch.Tensor,
    cpu: torch.Tensor | None,
    dtype_name: str,
    options: CompareOptions,
) -> CompareResult:
    storage = T.STORAGE_DTYPES[dtype_name]
    row = T.three_dim_thresholds(dtype_name, options.thresholds.get(dtype_name))
    ctype = compute_dtype(storage)
    dmax = float(torch.finfo(storage).max)

    a_flat, g_flat = flat(actual), flat(golden)
    c_flat = flat(cpu) if cpu is not None else None
    cand, ctrl = _SideTotals(), _SideTotals()
    worst = WorstTracker(options.top_k)
    for start, end in chunk_ranges(a_flat.numel(), options.chunk):
        gc = _GoldenChunk(g_flat[start:end].to(ctype), row, dmax)
        cand.add(_judge_chunk(a_flat[start:end].to(ctype), gc, row, dmax, worst, start))
        if c_flat is not None:
            ctrl.add(_judge_chunk(c_flat[start:end].to(ctype), gc, row, dmax))

    has_cpu = c_flat is not None
    small_ratio = _ratio(cand.small_errors, ctrl.small_errors)
    cancel_ratio = _ratio(cand.cancel_errors, ctrl.cancel_errors)
    mere, mare = cand.mere, cand.rel_max
    cpu_normal = (ctrl.mere < row.precision and ctrl.rel_max < row.mare) if has_cpu else None
    normal = _judge_normal(cand, ctrl, has_cpu, row, dtype_name, storage, options)
    dims = Dimensions(
        normal_range=normal.passed,
        small_value=small_ratio <= T.ERROR_COUNT_RATIO_LIMIT,
        cancellation=cancel_ratio <= T.ERROR_COUNT_RATIO_LIMIT,
        nan_positions=cand.nan_mismatches == 0,
    )
    passed = all(getattr(dims, d) for d in ("normal_range", "small_value", "cancellation", "nan_positions"))
    total = a_flat.numel()
    worst_list = worst_elements(worst, actual, golden, cpu, _DOMAINS, dmax)

    warnings = _warnings(cand, ctrl, has_cpu, cpu_normal, normal, row, dtype_name)
    result = CompareResult(
        name=name,
        standard="three_dim",
        passed=passed,
        dtype=dtype_name,
        threshold=row.precision,
        mere=mere,
        mare=mare,
        max_diff=cand.diff_max,
        mean_diff=cand.mean_diff,
        mismatch_count=cand.mismatches,
        total_count=total,
        mismatch_ratio=cand.mismatches / total if total else 0.0,
        small_value_error_count=cand.small_errors,
        small_value_cpu_error_count=ctrl.small_errors,
        small_value_total_count=cand.small_total,
        cancel_error_count=cand.cancel_errors,
        cancel_cpu_error_count=ctrl.cancel_errors,
        cancel_total_count=cand.cancel_total,
        summary="",
        shape=list(actual.shape),
        golden_dtype=str(golden.dtype).removeprefix("torch."),
        mare_threshold=row.mare,
        normal_total_count=cand.normal,
        nan_mismatch_count=cand.nan_mismatches,
        saturated_count=cand.saturated,
        dimensions=dims,
        cpu_control=(
            CpuControl(
                mere=ctrl.mere,
                mare=ctrl.rel_max,
                max_diff=ctrl.diff_max,
                normal_passed=cpu_normal,
                mismatch_count=ctrl.mismatches,
                nan_count=ctrl.nan_count,
            )
            if has_cpu
            else None
        ),
        bias=_bias(cand, ctrl if has_cpu else None),
        worst=worst_list,
        warnings=warnings,
        thresholds_used=row.as_dict() | _normal_range_settings(options.normal_range, dtype_name),
    )
    result.summary = _summary(result, normal, small_ratio, cancel_ratio)
    return result


def _normal_range_settings(mode: str, dtype_name: str) -> dict[str, float | str]:
    if mode != "cpu_relative":
        return {"normal_range": mode}
    mere_bound, mare_bound = T.cpu_relative_bounds(dtype_name)
    return {
        "normal_range": mode,
        "cpu_relative_mere_ratio": T.CATLASS_METRIC_LIMITS["mere"],
        "cpu_relative_mare_ratio": T.CATLASS_METRIC_LIMITS["mare"],
        "cpu_relative_mere_bound": mere_bound,
        "cpu_relative_mare_bound": mare_bound,
    }


def _bias(cand: _SideTotals, ctrl: _SideTotals | None) -> SignedBias | None:
    if cand.nonzero == 0:
        return None
    return SignedBias(
        nonzero_count=cand.nonzero,
        toward_zero_fraction=cand.toward_zero / cand.nonzero,
        positive_fraction=cand.positive / cand.nonzero,
        cpu_toward_zero_fraction=(ctrl.toward_zero / ctrl.nonzero) if ctrl and ctrl.nonzero else None,
    )


#: A one-sided bias is only called out with at least this many differing elements.
_BIAS_MIN_COUNT = 64
_BIAS_ONE_SIDED = 0.95


def _warnings(cand, ctrl, has_cpu, cpu_normal, normal: _NormalRange, row, dtype_name) -> list[str]:
    out = []
    if not has_cpu:
        out.append(
            "no CPU same-precision control: small-value and cancellation errors are compared "
            "against 0 CPU errors, which is stricter than the specification intends"
        )
    if cpu_normal is False:
        problem = _cpu_licence_problem(ctrl, dtype_name)
        advice = (
            f"normal_range='cpu_relative' judges the candidate against the CPU's own error, within "
            f"{T.CPU_RELATIVE_MAX_FACTOR:g}x the default thresholds"
            if problem is None
            else f"relaxing to the CPU's error would not be sound: {problem}; check the reference and the inputs"
        )
        out.append(
            f"the CPU same-precision control also fails the normal-range thresholds "
            f"(cpu MERE {fmt(ctrl.mere)}, MARE {fmt(ctrl.rel_max)} vs {fmt(row.precision)}, "
            f"{fmt(row.mare)}): the threshold, not necessarily the kernel, is at issue; {advice}"
        )
    default = T.THREE_DIM[dtype_name].precision
    if row.precision > T.CUSTOM_THRESHOLD_ADVISED_MAX_FACTOR * default:
        out.append(
            f"custom threshold {fmt(row.precision)} is {row.precision / default:.0f}x the default "
            f"{fmt(default)}: the comparator specification (docs/comparator.md) advises against more than "
            f"{T.CUSTOM_THRESHOLD_ADVISED_MAX_FACTOR:g}x"
        )
    if normal.warning:
        out.append(normal.warning)
    for label, npu, cpu in (
        ("small-value", cand.small_errors, ctrl.small_errors),
        ("cancellation", cand.cancel_errors, ctrl.cancel_errors),
    ):
        if has_cpu and cpu == 0 and 0 < npu <= T.ERROR_COUNT_RATIO_LIMIT:
            out.append(
                f"{npu} {label} error(s) where the CPU control has none: tolerated by the "
                f"ratio rule (<= {T.ERROR_COUNT_RATIO_LIMIT:g}), but worth a look"
            )
    if cand.nonzero >= _BIAS_MIN_COUNT:
        toward = cand.toward_zero / cand.nonzero
        cpu_toward = ctrl.toward_zero / ctrl.nonzero if ctrl.nonzero else 0.5
        one_sided = toward >= _BIAS_ONE_SIDED or toward <= 1 - _BIAS_ONE_SIDED
        cpu_one_sided = has_cpu and (cpu_toward >= _BIAS_ONE_SIDED or cpu_toward <= 1 - _BIAS_ONE_SIDED)
        if one_sided and not cpu_one_sided:
            if toward >= _BIAS_ONE_SIDED:
                share, side = toward, "toward zero"
                cause = (
                    "something truncates (a round-toward-zero cast, or an accumulator that drops "
                    "low bits, e.g. tensor-core accumulation)"
                )
            else:
                share, side = 1 - toward, "away from zero"
                cause = (
                    "something inflates magnitudes (a round-away-from-zero or round-up cast, a "
                    "scale or bias applied twice, a denominator that is slightly too small)"
                )
            out.append(
                f"{share:.0%} of the {cand.nonzero} inexact elements err {side} (a round-to-nearest "
                f"result errs both ways about equally): {cause}, even if the thresholds pass"
            )
    if cand.saturated:
        out.append(
            f"{cand.saturated} element(s) were Inf or out of range on one side only and were compared as the dtype's "
            "largest value"
        )
    return out


def _summary(r: CompareResult, normal: _NormalRange, small_ratio: float, cancel_ratio: float) -> str:
    """The verdict in one line; numbers come from the judgement itself (`normal`), never from the
    result's JSON-safe fields, where NaN / Inf are strings."""
    head = f"{'PASS' if r.passed else 'FAIL'} three_dim {r.dtype} {r.name}"
    if r.total_count == 0:
        return f"{head}: nothing to compare (0 elements)"
    failed = []
    d = r.dimensions
    if not d.nan_positions:
        failed.append(f"NaN positions differ at {fmt_count(r.nan_mismatch_count)} element(s)")
    if not d.normal_range:
        failed.append(normal.rule)
    if not d.small_value:
        failed.append(
            f"small-value: {r.small_value_error_count} errors vs cpu {r.small_value_cpu_error_count} "
            f"(ratio {small_ratio:.3g} > 2)"
        )
    if not d.cancellation:
        failed.append(
            f"cancellation: {r.cancel_error_count} errors vs cpu {r.cancel_cpu_error_count} "
            f"(ratio {cancel_ratio:.3g} > 2)"
        )
    mismatched = (
        f"Mismatched elements: {fmt_count(r.mismatch_count)} / {fmt_count(r.total_count)} ({r.mismatch_ratio:.1%})"
    )
    if r.passed:
        return (
            f"{head}: {normal.rule}; small-value errors {r.small_value_error_count} vs cpu "
            f"{r.small_value_cpu_error_count}; cancellation {r.cancel_error_count} vs cpu "
            f"{r.cancel_cpu_error_count}. {mismatched}"
        )
    mismatched = f" {mismatched}." if r.mismatch_count else ""
    return f"{head}: {'; '.join(failed)}.{mismatched}{describe_worst(r.worst)}"
