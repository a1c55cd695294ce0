"""benchmark_kernel: request and result (the single source of the tool's schema and CLI flags)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from tools.models.common import Model
from tools.models.task import (
    Backend,
    BackendInfo,
    Dtype,
    ErrorInfo,
    IsolationItem,
    JobLimitFields,
    MemoryMegabytes,
    Profile,
    TimeoutSeconds,
    Timings,
)

BenchVerdict = Literal["ok", "flagged", "not_accurate", "unsupported", "runtime_error", "timeout", "crashed"]
FlagId = Literal[
    "beyond_roofline",
    "stale_output",
    "timed_output_mismatch",
    "faster_on_repeated_inputs",
    "side_stream",
    "reference_slowed",
    "timer_patched",
]


class BenchmarkOptions(Model):
    """How to time: repetitions, cache, graphs, inputs and the device's peaks (benchmark_kernel's options, and
    run_accuracy_batch's `benchmark`, which times every passing candidate with them)."""

    repetitions: int = Field(
        default=100, ge=5, le=10000, description="Timed repetitions per kernel (reference, candidate)."
    )
    warmup: int = Field(
        default=10, ge=0, le=1000, description="Untimed repetitions before timing (after the first call)."
    )
    flush_l2: bool = Field(
        default=True,
        description="Write a buffer twice the L2 cache's size before every repetition (cold cache, as in Triton's "
        "do_bench); false times with a warm cache (the roofline's bandwidth bound is then not checked).",
    )
    cuda_graphs: bool = Field(
        default=False, description="Capture each forward in a CUDA graph and time its replays (no launch overhead)."
    )
    vary_inputs: bool = Field(
        default=True,
        description="Copy a different input set into the input buffers before each repetition (the seeds of the "
        "accuracy run), so a candidate that caches its output or skips work on repeated inputs is caught.",
    )
    input_sets: int = Field(
        default=3,
        ge=1,
        le=8,
        description="How many input sets (seeds) to rotate; with reference + candidate, the seeds run_accuracy draws.",
    )
    peak_gbps: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="The device's memory bandwidth in GB/s (default: its table row).",
    )
    peak_tflops: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="The device's peak TFLOP/s for the task's dtype (default: table).",
    )


class BenchmarkRequest(BenchmarkOptions, JobLimitFields):
    """Time the candidate against the reference on the device, on the same inputs, with checks that the speedup
    is real (timed outputs checked, inputs varied, L2 flushed, roofline)."""

    run_id: str | None = Field(
        default=None,
        description="A run_accuracy run that passed: its task, seeds and accepted outputs are used. Or give "
        "reference + candidate instead, which runs run_accuracy first.",
    )
    reference: str | None = Field(
        default=None, description="The task's reference (source or .py path), without run_id."
    )
    candidate: str | None = Field(default=None, description="The candidate (source or .py path), without run_id.")
    backend: Backend = "auto"
    dtype: Dtype = None
    input_profile: Profile = "task"
    bytes_moved: int | None = Field(
        default=None,
        ge=1,
        description="The task's minimum memory traffic in bytes; default: inputs read once + outputs written once.",
    )
    flops: int | None = Field(
        default=None,
        ge=0,
        description="The task's floating-point operations; default: torch's FLOP counter on the "
        "reference (matmul, conv, attention; elementwise ops count 0).",
    )
    estimate_device: str = Field(
        default="H200",
        description="cpu backend: the device (a row of the peak table) the roofline estimate is made for.",
    )
    timeout_s: TimeoutSeconds = 300.0
    memory_mb: MemoryMegabytes = 8192

    @model_validator(mode="after")
    def _run_or_sources(self):
        given = [name for name in ("reference", "candidate") if getattr(self, name) is not None]
        if self.run_id is not None and given:
            raise ValueError(f"pass either run_id or reference + candidate, not both (got run_id and {given[0]})")
        if self.run_id is None and len(given) != 2:
            missing = [n for n in ("reference", "candidate") if n not in given]
            raise ValueError(f"pass run_id, or both reference and candidate ({' and '.join(missing)} missing)")
        if self.run_id is not None:
            own = [name for name in ("dtype", "input_profile") if name in self.model_fields_set]
            if own:
                raise ValueError(f"with run_id the run's own {' and '.join(own)} apply: leave {own[0]} out")
        for name in given:
            if not getattr(self, name).strip():
                raise ValueError(f"{name} is empty: pass Python source text or a path to a .py file")
        return self


class TimingStats(Model):
    """One kernel's repetitions, in milliseconds."""

    n: int
    median_ms: float
    q1_ms: float
    q3_ms: float
    iqr_ms: float
    mean_ms: float
    std_ms: float
    cv: float = Field(description="std / mean.")
    min_ms: float
    max_ms: float
    median_se_ms: float = Field(
        description="Standard error of the median: 1.2533 * (IQR / 1.349) / sqrt(n), "
        "with the event resolution added in quadrature."
    )
    samples_ms: list[float] = Field(default_factory=list, description="Every timed repetition, in order.")


class Speedup(Model):
    value: float = Field(description="reference median / candidate median.")
    low: float = Field(description="Lower end of the ~95% interval (medians' standard errors in quadrature).")
    high: float
    relative_uncertainty: float = Field(description="Half the interval's width in log space (~2 sigma).")
    range_low: float = Field(description="reference q1 / candidate q3: the spread of single repetitions.")
    range_high: float = Field(description="reference q3 / candidate q1.")


class LaunchTiming(Model):
    """The forward as a caller pays it: eager calls back to back, launch included (the speedup above is
    device time, with the launch hidden behind a spin). Measured for forwards of at most 5 ms."""

    reference_host_us: float = Field(description="Median host time of one reference forward call (its launch).")
    candidate_host_us: float = Field(description="Median host time of one candidate forward call (its launch).")
    reference_call_us: float = Field(description="Median wall time per call of back-to-back reference calls.")
    candidate_call_us: float = Field(description="Median wall time per call of back-to-back candidate calls.")
    speedup: float = Field(description="reference_call_us / candidate_call_us: the speedup with the launch included.")


class RooflinePoint(Model):
    achieved_gbps: float | None = None
    achieved_tflops: float | None = None
    fraction_of_roofline: float | None = Field(
        default=None,
        description="Roofline lower bound / measured median: 1.0 is the device's limit; above it, impossible.",
    )


class Roofline(Model):
    """The task's bytes and FLOPs against the device's peaks: the least time the device needs."""

    device: str
    bytes: int
    bytes_source: str
    flops: int
    flops_source: str
    peak_gbps: float | None = None
    peak_tflops: float | None = None
    peak_source: str = ""
    dtype: str | None = Field(default=None, description="The dtype whose FLOP/s peak applies.")
    memory_bound_ms: float | None = Field(default=None, description="bytes / peak bandwidth.")
    compute_bound_ms: float | None = Field(default=None, description="flops / peak FLOP/s.")
    min_time_ms: float | None = Field(default=None, description="The larger of the two: no kernel is faster.")
    bandwidth_checked: bool = Field(
        default=True, description="False with a warm cache: L2 can beat the memory bandwidth."
    )
    reference: RooflinePoint | None = None
    candidate: RooflinePoint | None = None


class Flag(Model):
    """A reason not to trust the speedup."""

    id: FlagId
    message: str
    evidence: dict[str, float | int | str | None] = Field(default_factory=dict)


class TimedOutputCheck(Model):
    """Whether the timed launches produced the accuracy-checked output."""

    repetitions_checked: int = 0
    stale_repetitions: int = Field(
        default=0, description="Timed repetitions whose output did not belong to its inputs."
    )
    final_outputs: Literal["identical", "within_accuracy", "mismatch", "not_checked"] = "not_checked"
    detail: str = ""


class BenchmarkSettings(Model):
    repetitions: int
    warmup: int
    flush_l2: bool
    cuda_graphs: bool
    vary_inputs: bool
    input_sets: int
    inputs_varied: bool = Field(
        default=False, description="Whether input sets were actually rotated (the task allows it)."
    )
    seeds: list[int] = Field(default_factory=list)


class BenchmarkResult(Model):
    verdict: BenchVerdict = Field(
        description="ok: a speedup to trust; flagged: timed, but a check says not to trust it (see flags); "
        "not_accurate: the candidate did not pass run_accuracy; unsupported: this backend cannot time (see "
        "reason and estimate)."
    )
    summary: str
    run_id: str | None = Field(default=None, description="The run_accuracy run whose accepted outputs were checked.")
    backend: BackendInfo | None = None
    device: str | None = Field(default=None, description="The device's name, e.g. NVIDIA H200.")
    method: str | None = Field(default=None, description="How the times were taken, in words.")
    settings: BenchmarkSettings | None = None
    reference: TimingStats | None = None
    reference_alone: TimingStats | None = Field(
        default=None,
        description="The reference timed the same way in a process where the candidate's code never runs; "
        "`reference` (timed beside the candidate) is checked against it (flag reference_slowed).",
    )
    candidate: TimingStats | None = None
    speedup: Speedup | None = Field(default=None, description="Device time: reference median / candidate median.")
    launch: LaunchTiming | None = Field(
        default=None,
        description="Eager calls back to back, launch included, and each forward's host launch time (not measured "
        "for forwards past 5 ms, where the launch is noise).",
    )
    roofline: Roofline | None = None
    flags: list[Flag] = Field(default_factory=list)
    output_check: TimedOutputCheck = Field(default_factory=TimedOutputCheck)
    repeated_input_median_ms: float | None = Field(
        default=None, description="The candidate's median on the same input every repetition (KernelBench-style)."
    )
    synchronized_median_ms: float | None = Field(
        default=None, description="The candidate's median with a device-wide synchronize inside the timed region."
    )
    reason: str | None = Field(default=None, description="Why this backend cannot time (verdict unsupported).")
    estimate: Roofline | None = Field(default=None, description="What it offers instead: the roofline estimate.")
    error: ErrorInfo | None = None
    isolation: dict[str, IsolationItem] = Field(default_factory=dict)
    timings: Timings
    warnings: list[str] = Field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    next_step: str | None = None
