"""Precision: low-precision accumulation, cancellation, rounding bias, large-K drift; nondeterminism."""

from __future__ import annotations

import torch

from tools import thresholds as T
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors.common import _lines, _num, nonfinite_agree
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Evidence, FixId
from tools.repair.source import SourceFacts


def error_by_magnitude(o: OutputData) -> list | None:
    """Mean relative error per quartile of |golden| (smallest first): accumulation errors grow
    with magnitude in absolute terms; cancellation and small-value errors sit in the first bin."""
    if o.actual is None or o.golden is None or o.actual.shape != o.golden.shape or o.golden.numel() < 8:
        return None
    a, g = o.a.reshape(-1), o.g.reshape(-1)
    finite = torch.isfinite(a) & torch.isfinite(g)
    if int(finite.sum()) < 8:
        return None
    a, g = a[finite], g[finite]
    order = torch.argsort(g.abs())
    rel = ((a - g).abs() / (g.abs() + T.RELATIVE_ERROR_EPS))[order]
    mag = g.abs()[order]
    bins = []
    for chunk_rel, chunk_mag in zip(torch.chunk(rel, 4), torch.chunk(mag, 4), strict=True):
        bins.append({"golden_abs_up_to": float(chunk_mag.max()), "mean_rel_error": float(chunk_rel.mean())})
    return bins


def _large_outputs_within(bins: list | None, threshold: float) -> bool:
    """Does the quarter of the outputs with the largest golden magnitudes err within the threshold
    (`bins`: error_by_magnitude)? Precision lost where results are tiny (log(1 + x), an underflow)
    leaves the large ones right; a value wrong at every magnitude (a wrong index, factor, formula or
    additive term) also fails the small-value dimension, and is not that."""
    return bool(bins) and float(bins[-1]["mean_rel_error"]) <= threshold


@detector(
    "precision",
    (
        "reduced_precision_dot",
        "low_precision_accumulation",
        "large_k_accumulation_drift",
        "rounding_mode_bias",
        "small_value_outliers",
        "cancellation_error",
        "threshold_too_strict",
    ),
)
def precision(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    if not bool(torch.isfinite(o.g).all()) and not nonfinite_agree(o.a, o.g):
        return []  # infinities at other positions than the golden's: the errors measured are theirs, not rounding
    fingerprint = ctx.fingerprint if o.seed == ctx.fingerprint_seed else []
    r = o.neutral
    cpu = r.cpu_control
    mere, mare = _num(r.mere), _num(r.mare)
    cpu_mere, cpu_mare = (_num(cpu.mere), _num(cpu.mare)) if cpu else (0.0, 0.0)
    threshold = float(r.threshold or 0) or 1.0
    out: list[Diagnosis] = []
    normal_failed, small_failed, cancel_failed = o.normal_failed, o.small_failed, o.cancel_failed
    toward_zero = o.toward_zero
    closest = fingerprint[0].model if fingerprint else None
    by_magnitude = error_by_magnitude(o)
    evidence: Evidence = {
        "mere": mere,
        "mare": mare,
        "cpu_mere": cpu_mere,
        "threshold": threshold,
        "mere_over_cpu": mere / cpu_mere if cpu_mere else None,
        "toward_zero_fraction": toward_zero,
        "compute_num": ctx.compute_num,
        "compute_num_source": ctx.compute_num_source,
        "backend": ctx.result.backend.name if ctx.result.backend else None,
        "rel_error_by_golden_magnitude": by_magnitude,
    }
    if closest:
        evidence["closest_precision_model"] = closest
    gpu = ctx.result.backend is not None and not ctx.result.backend.interpreter

    exact = next((float(p.mere_vs_candidate) for p in fingerprint if p.model.startswith("exact")), None)
    tf32_better = (
        closest is not None
        and closest.startswith("tf32")
        and exact is not None
        and float(fingerprint[0].mere_vs_candidate) < 0.5 * exact
    )  # fp16 inputs: tf32 rounding changes nothing
    if tf32_better and (normal_failed or mere > threshold / 4):
        out.append(
            Diagnosis(
                pattern="reduced_precision_dot",
                confidence=0.95,
                seed=o.seed,
                output=o.name,
                summary=f"the output matches tf32-rounded inputs (MERE {fingerprint[0].mere_vs_candidate:.2g} against "
                f"that emulation vs {mere:.2g} against the golden): tl.dot used tf32 on fp32 inputs"
                + (f" ({_lines(facts.dot_without_ieee)})" if facts.dot_without_ieee else ""),
                evidence=evidence,
                suggested_fixes=["ieee_dot_precision"],
            )
        )
    if facts.low_precision_accumulator or (closest or "").startswith("fp16 accumulator"):
        if normal_failed or small_failed or cancel_failed:
            out.append(
                Diagnosis(
                    pattern="low_precision_accumulation",
                    confidence=0.93 if facts.low_precision_accumulator else 0.8,
                    seed=o.seed,
                    output=o.name,
                    summary="partial sums are kept in low precision: every addition rounds relative to the "
                    f"running sum, so error grows with the reduction (MERE {mere:.2g} vs CPU {cpu_mere:.2g})"
                    + (
                        f"; low-precision accumulator at {_lines(facts.low_precision_accumulator)}"
                        if facts.low_precision_accumulator
                        else ""
                    ),
                    evidence=evidence | {"low_precision_accumulator": _lines(facts.low_precision_accumulator)},
                    suggested_fixes=["fp32_accumulator", "kahan_summation"],
                )
            )
    uniform = mare > 0 and mere > 0 and mare / mere < 4
    long_reduction = (ctx.compute_num or 0) >= 2048
    if (
        normal_failed
        and long_reduction
        and (toward_zero or 0) >= 0.9
        and (facts.dot_accumulate_in_loop or gpu)
        and not out
    ):
        out.append(
            Diagnosis(
                pattern="large_k_accumulation_drift",
                confidence=0.9 if uniform else 0.75,
                seed=o.seed,
                output=o.name,
                summary=f"over a reduction of {ctx.compute_num}, the accumulation drifts toward zero "
                f"({toward_zero:.0%} of errors) by a nearly uniform relative error (MERE {mere:.2g}, MARE {mare:.2g}): "
                "per-block additions into a large accumulator lose low bits (tensor cores truncate)",
                evidence=evidence | {"acc_plus_dot_in_loop": _lines(facts.dot_accumulate_in_loop)},
                suggested_fixes=["kahan_summation", "fp32_accumulator"],
            )
        )
    # A truncating conversion errs by less than one unit in the last place of the output dtype;
    # a one-sided error far larger than that is a formula or scale error, not a rounding mode.
    ulp = float(torch.finfo(o.actual.dtype).eps) if o.actual is not None and o.actual.is_floating_point() else 0.0
    within_ulps = ulp == 0.0 or mare <= 4 * ulp
    inexact = o.neutral.bias.nonzero_count if o.neutral.bias else 0
    if (
        toward_zero is not None
        and toward_zero >= 0.95
        and inexact >= T.ROUNDING_BIAS_MIN_INEXACT
        and within_ulps
        and not out
    ):
        cpu_toward = o.cpu_toward_zero
        if cpu_toward is None or 0.05 < cpu_toward < 0.95:
            # Without a truncating cast in the source, a bias on a passing run is the hardware's
            # (tensor cores truncate inside tl.dot): worth knowing, not a defect to fix.
            confidence = 0.95 if facts.rtz_cast else 0.6 if o.failed else 0.3
            cause = (
                f" (fp_downcast_rounding='rtz' at {_lines(facts.rtz_cast)})"
                if facts.rtz_cast
                else " (no truncating cast in the source: likely tensor-core truncation inside tl.dot)"
                if gpu
                else ""
            )
            out.append(
                Diagnosis(
                    pattern="rounding_mode_bias",
                    confidence=confidence,
                    seed=o.seed,
                    output=o.name,
                    summary=f"{toward_zero:.0%} of the inexact elements err toward zero (CPU: "
                    f"{cpu_toward if cpu_toward is not None else 0.5:.0%}): a truncating conversion{cause}",
                    evidence=evidence | {"rtz_cast": _lines(facts.rtz_cast)},
                    suggested_fixes=["cast_round_mode_rint"] if facts.rtz_cast or o.failed else [],
                )
            )
    if (
        small_failed
        and (facts.log_one_plus or _large_outputs_within(by_magnitude, threshold))
        and not any(d.pattern == "low_precision_accumulation" for d in out)
    ):
        fixes: list[FixId] = ["stable_formula"] if facts.log_one_plus else ["fp32_accumulator", "stable_formula"]
        out.append(
            Diagnosis(
                pattern="small_value_outliers",
                confidence=0.8 if facts.log_one_plus else 0.7,
                seed=o.seed,
                output=o.name,
                summary=f"{r.small_value_error_count} errors among small golden values vs "
                f"{r.small_value_cpu_error_count} for the CPU: precision is lost where results are tiny"
                + (
                    f" (log(1 + x) at {_lines(facts.log_one_plus)} loses x when x is small: use log1p)"
                    if facts.log_one_plus
                    else ""
                ),
                evidence=evidence
                | {
                    "small_value_errors": r.small_value_error_count,
                    "cpu_small_value_errors": r.small_value_cpu_error_count,
                },
                suggested_fixes=fixes,
            )
        )
    if (cancel_failed or (normal_failed and facts.one_pass_variance)) and not any(
        d.pattern == "low_precision_accumulation" for d in out
    ):
        counted = (
            f"{r.cancel_error_count} results cancel to ~0 wrongly vs {r.cancel_cpu_error_count} for the CPU"
            if r.cancel_error_count
            else f"the error is {mere / cpu_mere if cpu_mere else float('inf'):.3g}x the CPU control's"
        )
        out.append(
            Diagnosis(
                pattern="cancellation_error",
                confidence=0.85 if facts.one_pass_variance else 0.7,
                seed=o.seed,
                output=o.name,
                summary=f"{counted}: large nearly equal terms are subtracted in low precision"
                + (
                    f" (one-pass E[x^2] - E[x]^2 at {_lines(facts.one_pass_variance)})"
                    if facts.one_pass_variance
                    else ""
                ),
                evidence=evidence
                | {"cancellation_errors": r.cancel_error_count, "cpu_cancellation_errors": r.cancel_cpu_error_count},
                suggested_fixes=["stable_formula", "kahan_summation"]
                if facts.one_pass_variance
                else ["fp32_accumulator", "kahan_summation"],
            )
        )
    if normal_failed and not out:
        if (
            cpu is not None
            and cpu.normal_passed is False
            and cpu_mere
            and mere <= 2 * cpu_mere
            and mare <= 5 * (cpu_mare or mare)
        ):
            out.append(
                Diagnosis(
                    pattern="threshold_too_strict",
                    confidence=0.8,
                    seed=o.seed,
                    output=o.name,
                    summary=f"the CPU same-precision control fails the same threshold (MERE {cpu_mere:.2g}, "
                    f"MARE {cpu_mare:.2g}) and the candidate is within its error: "
                    "the threshold, not the kernel, is at issue",
                    evidence=evidence,
                    suggested_fixes=["relax_threshold"],
                )
            )
        elif facts.dot_accumulate_in_loop and long_reduction:
            out.append(
                Diagnosis(
                    pattern="large_k_accumulation_drift",
                    confidence=0.6,
                    seed=o.seed,
                    output=o.name,
                    summary=f"error grows over a reduction of {ctx.compute_num} accumulated block by block "
                    f"(MERE {mere:.2g} vs CPU {cpu_mere:.2g})",
                    evidence=evidence,
                    suggested_fixes=["kahan_summation", "fp32_accumulator"],
                )
            )
        else:
            out.append(
                Diagnosis(
                    pattern="low_precision_accumulation",
                    confidence=0.5,
                    seed=o.seed,
                    output=o.name,
                    summary=(
                        f"normal-range error {mere / cpu_mere:.3g}x the CPU's (MERE {mere:.2g} vs {cpu_mere:.2g})"
                        if cpu_mere
                        else f"normal-range error MERE {mere:.2g} where the CPU control's is 0"
                    )
                    + ": somewhere the kernel computes in lower precision than the op needs",
                    evidence=evidence,
                    suggested_fixes=["fp32_accumulator"],
                )
            )
    return out


@detector("nondeterminism", ("nondeterminism",), scope="run")
def nondeterminism(ctx: RunContext, facts: SourceFacts) -> list[Diagnosis]:
    det = ctx.result.checks.determinism
    if det is None or det.bitwise_equal is not False:
        return []
    return [
        Diagnosis(
            pattern="nondeterminism",
            confidence=0.9,
            summary=f"re-running seed {ctx.result.seeds[0].seed if ctx.result.seeds else '?'} changed "
            f"{det.differing_elements} element(s) (max |diff| {det.max_abs_diff:g}): "
            + (
                f"the order of floating-point additions depends on scheduling (tl.atomic_add at "
                f"{_lines(facts.atomic_add)})"
                if facts.atomic_add
                else "the source has no atomics: programs that write one address (a race), or values read "
                "from memory nothing wrote"
            ),
            evidence={
                "differing_elements": det.differing_elements,
                "max_abs_diff": det.max_abs_diff,
                "atomic_add": _lines(facts.atomic_add),
            },
            # a fixed-order reduction replaces atomics: offered only where the source has some
            suggested_fixes=["deterministic_reduction"] if facts.atomic_add else [],
        )
    ]
