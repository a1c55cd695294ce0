"""run_accuracy: request and result."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from tools.models.common import Model
from tools.models.compare import CompareResult, CompareSettings
from tools.models.task import (
    BackendInfo,
    ErrorInfo,
    IsolationItem,
    SeedFields,
    TaskRequest,
    Timings,
)

DeterminismMode = Literal["off", "warn", "require"]

Verdict = Literal["pass", "fail", "compile_error", "runtime_error", "timeout", "crashed", "rejected", "unsupported"]


class RunAccuracyRequest(CompareSettings, SeedFields, TaskRequest):
    """Run reference and candidate on fresh inputs in a sandbox and judge the candidate."""

    determinism: DeterminismMode = Field(
        default="warn",
        description="Re-run one seed and compare the outputs bit for bit. off: no re-run; warn: a "
        "difference is a warning (split-K and atomics reorder additions legitimately); require: a "
        "difference, or a re-run that fails, fails the run (for loops that need reproducible kernels).",
    )
    determinism_check: bool | None = Field(
        default=None,
        description="Deprecated: use determinism. false is determinism='off', true is 'warn'.",
        json_schema_extra={"deprecated": True},
    )
    require_kernel_launch: bool = Field(
        default=True, description="Reject a candidate that launches no Triton kernel (e.g. calls the torch op)."
    )
    store_tensors: bool = Field(
        default=True, description="Keep outputs and goldens in the run store for explain_failure."
    )
    shapes: Literal["task", "fuzz"] | list[dict[str, int]] = Field(
        default="fuzz",
        description="Sizes beyond the task's, checked once the task's shape passes, by rebinding the reference's "
        "module-level size constants (batch_size, N, ...; integers >= 8). fuzz: shape_count assignments that "
        "exercise tails (about half of each size, made odd; small odd sizes); task: the task's shape only; or "
        'a list of assignments, e.g. [{"N": 1000}]. Each shape runs one seed as its own stored run (run_id for '
        "explain_failure).",
    )
    shape_count: int = Field(default=2, ge=1, le=4, description="How many fuzzed shapes (shapes='fuzz').")
    shapes_mode: DeterminismMode = Field(
        default="warn",
        description="off: no shape check; warn: a shape that fails is a warning on a passing run; require: it fails "
        "the run (for kernels that must be general).",
    )
    fixed_sizes: list[str] = Field(
        default_factory=list,
        max_length=64,
        description="Size constants the task forbids changing (a kernel that legitimately needs, say, a power of "
        "two there).",
    )

    @model_validator(mode="after")
    def _determinism_alias(self):
        """Map the deprecated boolean onto `determinism`; refuse the two when they disagree."""
        legacy = self.determinism_check
        if legacy is None:
            return self
        if "determinism" not in self.model_fields_set:
            self.determinism = "warn" if legacy else "off"
        elif legacy != (self.determinism != "off"):
            raise ValueError(
                f"determinism_check={str(legacy).lower()} contradicts determinism={self.determinism!r}; "
                f"pass determinism alone (determinism_check is deprecated)"
            )
        return self


class StoredTask(RunAccuracyRequest):
    """What run_accuracy keeps beside a run's result (the run store's task.json): the request with its sources
    as text, and what the call resolved. explain_failure, suggest_fix and benchmark_kernel read it back."""

    resolved_seeds: list[int] = Field(default_factory=list, description="The seeds the run judged, in order.")
    backend_resolved: str = Field(default="cpu", description="The backend the run used (`auto` resolved).")
    reference_name: str = "reference.py"
    candidate_name: str = "candidate.py"

    def rerun(self, candidate: str | None = None, **overrides) -> RunAccuracyRequest:
        """The same call again, on the run's own seeds and backend (optionally with another candidate)."""
        fields = {name: getattr(self, name) for name in RunAccuracyRequest.model_fields}
        fields.update(seeds=self.resolved_seeds or self.seeds, backend=self.backend_resolved)
        if candidate is not None:
            fields["candidate"] = candidate
        return RunAccuracyRequest.model_validate(fields | overrides)


class ShapeRun(Model):
    """The candidate at one size assignment other than the task's (one seed, its own stored run)."""

    sizes: dict[str, int] = Field(description="The size constants changed, with their values here.")
    verdict: Verdict | Literal["skipped"]
    summary: str
    run_id: str | None = Field(default=None, description="The run at this size: explain_failure / suggest_fix read it.")


class ShapeCheck(Model):
    """The candidate beyond the task's shape (run only when the task's shape passes)."""

    mode: DeterminismMode
    applicable: bool
    note: str | None = None
    task_sizes: dict[str, int] = Field(default_factory=dict, description="The reference's size constants as given.")
    runs: list[ShapeRun] = Field(default_factory=list)

    def first_failure(self) -> ShapeRun | None:
        """The first size the candidate is wrong at (a size the backend cannot run is no failure of the kernel's)."""
        return next((r for r in self.runs if r.verdict not in ("pass", "skipped", "unsupported")), None)


class SeedResult(Model):
    seed: int
    passed: bool
    summary: str
    outputs: list[CompareResult]
    forward_s: float | None = None


class Provenance(Model):
    """Whether the output depends on what the forward's Triton kernels stored: the first seed's forward
    once more, every floating value its kernels store nudged by 2^-5 of itself (cpu: in the interpreter;
    cuda: the kernels compiled again with the nudge in their IR)."""

    checked: bool
    nudged_elements: int = Field(
        default=0, ge=0, description="cpu: floating elements the kernels stored in the nudged forward."
    )
    nudged_store_sites: int | None = Field(
        default=None, ge=0, description="cuda: store instructions compiled with the nudge (elements are not counted)."
    )
    output_elements: int = Field(
        default=0, ge=0, description="Output elements judged: NaN and Inf are left out (a nudge does not change them)."
    )
    dependent_elements: int = Field(
        default=0, ge=0, description="Output elements that changed when the kernels' stores were nudged."
    )
    floating_output: bool = Field(default=False, description="Some output is floating point.")
    kernel_reads: dict[str, int] = Field(
        default_factory=dict,
        description="The nudged forward's launches' tensor arguments that the kernels left unchanged, by where "
        "they came from: input (an input, parameter or buffer, or a view of one), copy (a cast, view, pad or "
        "concat of inputs), kernel (an earlier launch wrote it), constant (one value throughout), computed "
        "(torch made it from the inputs).",
    )
    computed_by: list[str] = Field(
        default_factory=list, description="Kernels that read a floating tensor torch computed (kernel_reads)."
    )
    input_tensors: int = Field(default=0, ge=0, description="Non-empty inputs, parameters and buffers of the model.")
    note: str | None = None

    @property
    def kernels_read_no_input(self) -> bool:
        """The forward had inputs, yet none of its kernels read one (or a copy of one): they stored what torch
        computed, or constants."""
        return bool(self.input_tensors) and not (self.kernel_reads.get("input") or self.kernel_reads.get("copy"))

    @property
    def stored_anything(self) -> bool:
        return bool(self.nudged_elements or self.nudged_store_sites)

    @property
    def dependent_fraction(self) -> float | None:
        if not self.checked or not self.stored_anything or not self.output_elements:
            return None
        return self.dependent_elements / self.output_elements


class DeviceTime(Model):
    """Where the device time of one forward went (cuda, the torch profiler's CUDA activity)."""

    measured: bool
    triton_share: float | None = Field(
        default=None, ge=0, le=1, description="Fraction of the forward's device time in its Triton kernels."
    )
    triton_us: float | None = None
    total_us: float | None = None
    other_kernels: list[str] = Field(
        default_factory=list, description="The other device activity that took the most time (name: microseconds)."
    )
    note: str | None = None


class Determinism(Model):
    checked: bool
    bitwise_equal: bool | None = None
    differing_elements: int | None = None
    max_abs_diff: float | None = None
    note: str | None = None


def _extent(after: int, before: int, unit: str) -> str:
    """'24 element(s) past the end and 1 element(s) before the start'."""
    parts = [
        f"{after} {unit}(s) past the end" if after else "",
        f"{before} {unit}(s) before the start" if before else "",
    ]
    return " and ".join(p for p in parts if p)


class OutOfBoundsWrite(Model):
    """An output allocation whose guard margins were written: a store reached past its ends."""

    seed: int
    shape: list[int] = Field(description="Shape of the allocation the store overran.")
    bytes_before: int = Field(description="Guard bytes changed before the first element.")
    bytes_after: int = Field(description="Guard bytes changed after the last element.")

    def extent(self) -> str:
        return _extent(self.bytes_after, self.bytes_before, "byte")


class OutOfBoundsRead(Model):
    """A guarded tensor whose margins a kernel's enabled load lanes read (cpu interpreter only)."""

    seed: int
    tensor: str = Field(
        description="'input N' (N: position among the forward's tensor inputs), 'parameter NAME', 'buffer NAME', "
        "'output allocation N' or 'a tensor the forward made' (another kernel argument: a clone, a table)."
    )
    shape: list[int]
    elements_before: int = Field(description="Distinct elements read before the tensor's first element.")
    elements_after: int = Field(description="Distinct elements read after the tensor's last element.")
    lines: list[int] = Field(default_factory=list, description="The candidate's lines whose loads read them.")

    def extent(self) -> str:
        return _extent(self.elements_after, self.elements_before, "element")


class Checks(Model):
    """What the sandbox saw the candidate do (beyond the numbers)."""

    kernel_launches: int = Field(default=0, description="Triton kernel launches over all seeds and re-runs.")
    launches_per_forward: list[int] = Field(
        default_factory=list, description="Triton kernel launches of each seed's forward (each must launch one)."
    )
    kernels: dict[str, int] = Field(default_factory=dict, description="Launches per kernel name.")
    input_mutation: list[int] = Field(default_factory=list, description="Indices of inputs the forward changed.")
    poisoned_allocations: int = Field(default=0, description="Empty allocations filled with NaN (ints: a sentinel).")
    input_guard: Literal["nan", "zero"] | None = Field(
        default=None,
        description="What the margins around floating inputs held: NaN makes loads past an input's end show as NaN "
        "outputs.",
    )
    out_of_bounds_writes: list[OutOfBoundsWrite] = Field(
        default_factory=list,
        description="Stores past the ends of empty allocations (caught in guard margins): the run fails.",
    )
    out_of_bounds_reads: list[OutOfBoundsRead] | None = Field(
        default=None,
        description="Loads whose enabled lanes read the guard margins around an input or an output allocation, "
        "whether or not the output shows it (a load without the tail mask whose lanes are masked at the store). "
        "Recorded on the cpu interpreter, which sees every load's addresses; None where not checked (compiled "
        "backends). A warning, not a failure.",
    )
    determinism: Determinism | None = None
    provenance: Provenance | None = Field(
        default=None,
        description="cpu and cuda: how much of the output depends on the Triton kernels' stores (None: not "
        "checked). A passing output none of whose elements does is rejected (output_not_from_kernels).",
    )
    device_time: DeviceTime | None = Field(
        default=None,
        description="cuda: the share of the (nudged) forward's device time spent in its Triton kernels; a "
        "warning below thresholds.TRITON_DEVICE_SHARE_WARN.",
    )
    torch_calls: dict[str, int] = Field(default_factory=dict, description="torch functions the forward called itself.")


class RunAccuracyResult(Model):
    run_id: str = Field(description="Key of this run in the run store: pass it to explain_failure / suggest_fix.")
    verdict: Verdict
    summary: str = Field(description="One line for a human or an agent.")
    standard: str
    backend: BackendInfo | None = None
    seeds: list[SeedResult] = Field(default_factory=list)
    checks: Checks = Field(default_factory=Checks)
    shapes: ShapeCheck | None = Field(
        default=None, description="The shape check (None: not run: shapes_mode off, or the task's shape failed)."
    )
    error: ErrorInfo | None = None
    isolation: dict[str, IsolationItem] = Field(default_factory=dict)
    timings: Timings
    warnings: list[str] = Field(default_factory=list)
    stdout: str = Field(default="", description="The candidate's stdout (tail).")
    stderr: str = Field(default="", description="The candidate's stderr (tail).")
    next_step: str | None = Field(default=None, description="What to call next.")
