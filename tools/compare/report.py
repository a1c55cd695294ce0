"""Formatting shared by the standards: numbers, worst elements, one-line summaries."""

from __future__ import annotations

import math

import torch

from tools import thresholds as T
from tools.compare.chunks import WorstTracker, flat, unravel
from tools.models.compare import Domain, WorstElement


def fmt(x: float | str | None) -> str:
    """A number for a summary: 3 significant digits; NaN / Inf as JSON carries them ('Infinity')."""
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    return f"{x:.3g}" if 1e-3 <= abs(x) < 1e4 else f"{x:.2e}"


def fmt_count(n: int) -> str:
    return f"{n:,}"


def _value(t: torch.Tensor, i: int, as_dtype: torch.dtype | None = None) -> float:
    v = flat(t)[i]
    return float((v if as_dtype is None else v.to(as_dtype)).item())


def _clamp(v: float, dmax: float | None) -> float:
    if dmax is None or math.isnan(v):
        return v
    return max(-dmax, min(dmax, v))


def worst_elements(
    tracker: WorstTracker,
    actual: torch.Tensor,
    golden: torch.Tensor,
    cpu: torch.Tensor | None,
    domain_names: tuple[Domain, ...],
    dmax: float | None,
    golden_as: torch.dtype | None = None,
) -> list[WorstElement]:
    """Turn the tracker's (score, index, domain code) into elements an agent can read;
    `golden_as` reports the golden rounded to that dtype (what assert_close compares)."""
    out = []
    for score, i, code in tracker.result():
        a, g = _value(actual, i), _value(golden, i, golden_as)
        a_s, g_s = _clamp(a, dmax), _clamp(g, dmax)
        diff = abs(a_s - g_s)
        if math.isnan(diff) and math.isnan(a) and math.isnan(g):
            continue  # matching NaNs are not errors
        out.append(
            WorstElement(
                index=unravel(i, tuple(actual.shape)),
                actual=a,
                golden=g,
                cpu=_value(cpu, i) if cpu is not None else None,
                abs_error=diff,
                rel_error=diff / (abs(g_s) + T.RELATIVE_ERROR_EPS),
                domain=domain_names[code],
                violation=score,
            )
        )
    return out


def describe_worst(worst: list[WorstElement]) -> str:
    """' Worst: index (3, 17): actual 1.23, golden 1.1 (cpu 1.1), rel err 0.12.' or ''."""
    if not worst:
        return ""
    w = worst[0]
    cpu = f", cpu {fmt(w.cpu)}" if w.cpu is not None else ""
    return (
        f" Worst at index {tuple(w.index)} ({w.domain}): actual {fmt(w.actual)}, golden "
        f"{fmt(w.golden)}{cpu}; abs err {fmt(w.abs_error)}, rel err {fmt(w.rel_error)}."
    )
