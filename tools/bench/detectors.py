"""The checks that say when not to trust a speedup, as pure functions of the timing data.

Each returns a Flag (with its evidence) or None. They complement each other: a cached output is
caught by the output checks, work skipped on repeated inputs by the repeated-input timing, work
left on an unsynchronised stream by the launch streams and the device-synchronised timing, and
anything that makes a time physically impossible by the roofline.
"""

from __future__ import annotations

from tools.bench import roofline as rl
from tools.models.bench import Flag, Roofline, TimedOutputCheck, TimingStats
from tools.thresholds import (
    NOISY_CV,
    REFERENCE_SLOWED_RATIO,
    REPEATED_INPUT_SPEEDUP_LIMIT,
    SIDE_STREAM_MIN_GAP_MS,
    SIDE_STREAM_RATIO_LIMIT,
)


def _us(ms: float) -> str:
    return f"{ms * 1e3:.3g} us"


def stale_output(check: TimedOutputCheck) -> Flag | None:
    if check.stale_repetitions == 0:
        return None
    return Flag(
        id="stale_output",
        message=f"{check.stale_repetitions} of {check.repetitions_checked} timed repetitions returned an output that "
        "does not belong to the inputs they were given (a cached output, or work skipped when the input buffers "
        "were reused): those times measure no work",
        evidence={"stale": check.stale_repetitions, "checked": check.repetitions_checked},
    )


def timed_output_mismatch(check: TimedOutputCheck) -> Flag | None:
    if check.final_outputs != "mismatch":
        return None
    return Flag(
        id="timed_output_mismatch",
        message=f"the outputs of the timed launches are not the accuracy-checked ones: {check.detail}",
        evidence={"detail": check.detail},
    )


def beyond_roofline(roofline: Roofline, candidate: TimingStats, speedup: float | None) -> Flag | None:
    point = rl.point(roofline, candidate.median_ms)
    if not rl.beyond(point) or roofline.min_time_ms is None:
        return None
    bound = "memory" if (roofline.memory_bound_ms or 0) >= (roofline.compute_bound_ms or 0) else "compute"
    achieved = (
        f"{point.achieved_gbps:.4g} GB/s of the {roofline.peak_gbps:.4g} GB/s peak"
        if bound == "memory"
        else f"{point.achieved_tflops or 0:.4g} TFLOP/s of the {roofline.peak_tflops:.4g} TFLOP/s peak"
    )
    return Flag(
        id="beyond_roofline",
        message=f"the candidate's median {_us(candidate.median_ms)} is below the {bound} roofline's "
        f"{_us(roofline.min_time_ms)} for {roofline.bytes} bytes and {roofline.flops} FLOPs on {roofline.device} "
        f"({achieved}): the speedup"
        + (f" of {speedup:.3g}x" if speedup is not None else "")
        + " is physically implausible (work skipped, cached, or not waited for)",
        evidence={
            "fraction_of_roofline": point.fraction_of_roofline,
            "min_time_ms": roofline.min_time_ms,
            "median_ms": candidate.median_ms,
        },
    )


def clocks_changed(changed: list[str]) -> Flag | None:
    """Task code replaced a clock the timing job reads (its own were bound before any task code ran, so the
    times stand; a candidate that reaches for the clocks is not timed in good faith)."""
    if not changed:
        return None
    return Flag(
        id="timer_patched",
        message=f"the candidate's code replaced what the timing reads time with ({', '.join(changed[:6])}): the "
        "job read its own clocks, bound before any task code ran, but a candidate that patches timers is trying "
        "to fake its speed",
        evidence={"replaced": ", ".join(changed)},
    )


def faster_on_repeated_inputs(varied: TimingStats, repeated: TimingStats | None) -> Flag | None:
    if repeated is None or varied.median_ms <= 0:
        return None
    ratio = repeated.median_ms / varied.median_ms
    if ratio >= REPEATED_INPUT_SPEEDUP_LIMIT:
        return None
    return Flag(
        id="faster_on_repeated_inputs",
        message=f"on the same input every repetition the candidate takes {_us(repeated.median_ms)}, "
        f"{ratio:.2g}x its {_us(varied.median_ms)} on varied inputs (L2 flushed in both): it skips work on "
        "repeated inputs, so timing that repeats one input (KernelBench-style) overstates its speed",
        evidence={"ratio": ratio, "repeated_median_ms": repeated.median_ms, "varied_median_ms": varied.median_ms},
    )


def side_stream(
    events: TimingStats,
    synchronized: TimingStats | None,
    foreign_launches: int,
    reference_events: TimingStats | None = None,
    reference_synchronized: TimingStats | None = None,
) -> Flag | None:
    """Launches on other streams, or a device-wide synchronize that costs the candidate more than it
    costs the reference (measured the same way in the same job: a synchronize alone costs ~10-200 us,
    more than a small kernel, so without the reference's timing the gap is not judged)."""
    evidence: dict = {"launches_on_other_streams": foreign_launches, "event_median_ms": events.median_ms}
    gap_found = False
    if synchronized is not None and reference_events is not None and reference_synchronized is not None:
        baseline = max(0.0, reference_synchronized.median_ms - reference_events.median_ms)
        excess = synchronized.median_ms - events.median_ms - baseline
        evidence |= {
            "synchronized_median_ms": synchronized.median_ms,
            "reference_synchronize_cost_ms": baseline,
            "unexplained_ms": excess,
        }
        gap_found = excess > max(
            SIDE_STREAM_MIN_GAP_MS, synchronized.iqr_ms, reference_synchronized.iqr_ms
        ) and synchronized.median_ms > SIDE_STREAM_RATIO_LIMIT * (events.median_ms + baseline)
    if not foreign_launches and not gap_found:
        return None
    parts = []
    if foreign_launches:
        parts.append(f"{foreign_launches} kernel launch(es) went to a stream other than the one being timed")
    if gap_found:
        assert synchronized is not None  # a gap is only found with a synchronized timing
        parts.append(
            f"with a device-wide synchronize inside the timed region it takes {_us(synchronized.median_ms)} "
            f"against {_us(events.median_ms)} by the stream's events, {_us(evidence['unexplained_ms'])} more than "
            "the synchronize costs the reference"
        )
    return Flag(
        id="side_stream",
        message="; ".join(parts) + ": work left on an unsynchronised side stream is not in the events' time "
        "(make the current stream wait for it, e.g. torch.cuda.current_stream().wait_stream(s))",
        evidence=evidence,
    )


def reference_slowed(beside: TimingStats, alone: TimingStats | None) -> Flag | None:
    """The reference is slower beside the candidate than in a process of its own: the candidate's
    import (which runs in the joint job) slowed it, so the speedup is inflated."""
    if alone is None or alone.median_ms <= 0:
        return None
    ratio = beside.median_ms / alone.median_ms
    if ratio <= REFERENCE_SLOWED_RATIO or beside.q1_ms <= alone.q3_ms:
        return None
    return Flag(
        id="reference_slowed",
        message=f"the reference takes {_us(beside.median_ms)} beside the candidate and {_us(alone.median_ms)} in a "
        f"process of its own ({ratio:.2g}x): the candidate's code slows the reference (a patched forward, a "
        "spin on the device), so the speedup is inflated",
        evidence={"ratio": ratio, "beside_median_ms": beside.median_ms, "alone_median_ms": alone.median_ms},
    )


def noisy(name: str, stats: TimingStats) -> str | None:
    if stats.cv <= NOISY_CV:
        return None
    return (
        f"the {name}'s times vary (CV {stats.cv:.2g} > {NOISY_CV:g}): another process may share the device, or the "
        "kernel is too short for stable timing; the median and its interval still hold, but re-run to confirm"
    )
