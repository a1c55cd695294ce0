"""Statistics of timed repetitions: median, quartiles, CV, and the speedup with its uncertainty."""

from __future__ import annotations

import math
import statistics

from tools.models.bench import Speedup, TimingStats
from tools.thresholds import EVENT_RESOLUTION_MS

#: se(median) = sqrt(pi / 2) * sigma / sqrt(n) for a normal sample; sigma = IQR / 1.349 (robust).
MEDIAN_SE_FACTOR = math.sqrt(math.pi / 2)
IQR_TO_SIGMA = 1.349
Z95 = 1.96


def quantile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, 'linear')."""
    if not sorted_values:
        raise ValueError("no values")
    pos = q * (len(sorted_values) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


def summarize(samples_ms: list[float]) -> TimingStats:
    if not samples_ms:
        raise ValueError("no timed repetitions")
    ordered = sorted(samples_ms)
    n = len(ordered)
    q1, median, q3 = quantile(ordered, 0.25), quantile(ordered, 0.5), quantile(ordered, 0.75)
    mean = statistics.fmean(ordered)
    std = statistics.stdev(ordered) if n > 1 else 0.0
    sigma = (q3 - q1) / IQR_TO_SIGMA
    se = math.hypot(MEDIAN_SE_FACTOR * sigma / math.sqrt(n), EVENT_RESOLUTION_MS)
    return TimingStats(
        n=n,
        median_ms=median,
        q1_ms=q1,
        q3_ms=q3,
        iqr_ms=q3 - q1,
        mean_ms=mean,
        std_ms=std,
        cv=std / mean if mean > 0 else 0.0,
        min_ms=ordered[0],
        max_ms=ordered[-1],
        median_se_ms=se,
        samples_ms=list(samples_ms),
    )


def speedup(reference: TimingStats, candidate: TimingStats) -> Speedup:
    """Ratio of medians; the interval combines both medians' relative standard errors in quadrature
    (log space, ~95%); the range is what single repetitions spread over (quartiles)."""
    tiny = 1e-9
    value = reference.median_ms / max(candidate.median_ms, tiny)
    rel = math.hypot(
        reference.median_se_ms / max(reference.median_ms, tiny), candidate.median_se_ms / max(candidate.median_ms, tiny)
    )
    half = Z95 * rel
    return Speedup(
        value=value,
        low=value * math.exp(-half),
        high=value * math.exp(half),
        relative_uncertainty=half,
        range_low=reference.q1_ms / max(candidate.q3_ms, tiny),
        range_high=reference.q3_ms / max(candidate.q1_ms, tiny),
    )


def agree(a: Speedup, b: Speedup) -> bool:
    """Two measurements of one speedup agree when each value lies within the other's range."""
    return a.range_low <= b.value <= a.range_high and b.range_low <= a.value <= b.range_high
