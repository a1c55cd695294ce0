"""Typed records of what a job reports (its result bundle's `meta`): one schema for both sides.

The harness checks the report it wrote against its record before it sends it (a field the server
would not understand is a harness bug, caught there); the server parses the report into the record
before it reads a field. The server's parse is the one that matters: the report comes out of the
process that ran the candidate's code, which may have changed the harness or what it reports, so
nothing in it is trusted to have the harness's shape. Stdlib only: the jobs import it too.

`parse(Record, raw)` accepts the types these records use (bool, int, float, str, None, Literal,
unions with None, list[...], dict[str, ...], tuple[...] and nested records) and raises ReportError
naming the field on the first mismatch. Keys a record does not name are ignored.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")


class ReportError(ValueError):
    """A job report without its record's shape (the job's code wrote it, or the harness is wrong)."""


# --- the parser -----------------------------------------------------------------------------------


def parse(record: type[T], raw: object, where: str = "report") -> T:
    """`raw` (decoded JSON) as a `record`, checked field by field; ReportError on the first mismatch."""
    if not isinstance(raw, dict):
        raise ReportError(f"{where}: expected an object, got {type(raw).__name__}")
    hints = typing.get_type_hints(record)
    values = {}
    for f in dataclasses.fields(record):  # type: ignore[arg-type]
        if f.name in raw:
            values[f.name] = _value(hints[f.name], raw[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ReportError(f"{where}: the field {f.name!r} is missing")
    return record(**values)


def _value(hint: Any, raw: object, where: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return raw
    if dataclasses.is_dataclass(hint):
        return parse(hint, raw, where)  # type: ignore[arg-type]
    if origin in (Union, types.UnionType):
        return _union(args, raw, where)
    if origin is Literal:
        if raw in args and type(raw) in {type(a) for a in args}:
            return raw
        raise ReportError(f"{where}: {raw!r} is not one of {list(args)}")
    if origin is list:
        items = _of(list, raw, where)
        return [_value(args[0], item, f"{where}[{i}]") for i, item in enumerate(items)]
    if origin is tuple:
        items = _of(list, raw, where)  # JSON has no tuples
        if len(items) != len(args):
            raise ReportError(f"{where}: expected {len(args)} items, got {len(items)}")
        return tuple(_value(a, item, f"{where}[{i}]") for i, (a, item) in enumerate(zip(args, items, strict=True)))
    if origin is dict:
        entries = _of(dict, raw, where)
        return {str(_of(str, k, where)): _value(args[1], v, f"{where}[{k!r}]") for k, v in entries.items()}
    return _scalar(hint, raw, where)


def _union(options: tuple, raw: object, where: str) -> Any:
    if raw is None and type(None) in options:
        return None
    errors = []
    for option in (o for o in options if o is not type(None)):
        try:
            return _value(option, raw, where)
        except ReportError as exc:
            errors.append(str(exc))
    raise ReportError(errors[0] if len(errors) == 1 else f"{where}: {raw!r} fits none of its types")


def _scalar(hint: Any, raw: object, where: str) -> Any:
    if hint is float and isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw)
    if hint is int and isinstance(raw, bool):  # JSON true is not a count
        raise ReportError(f"{where}: expected an integer, got a boolean")
    if hint in (bool, int, str) and isinstance(raw, hint):
        return raw
    if hint is type(None) and raw is None:
        return None
    raise ReportError(f"{where}: expected {getattr(hint, '__name__', hint)}, got {type(raw).__name__}")


def _of(kind: type, raw: object, where: str) -> Any:
    if not isinstance(raw, kind):
        expected = "an array" if kind is list else kind.__name__
        raise ReportError(f"{where}: expected {expected}, got {type(raw).__name__}")
    return raw


# --- what every job reports -----------------------------------------------------------------------


@dataclass(frozen=True)
class IsolationReport:
    active: bool
    detail: str = ""


@dataclass(frozen=True)
class UserErrorReport:
    """An exception of the user's code (sandbox/harness/errors.py); tools.models.task.ErrorInfo's fields."""

    phase: str = "run"
    type: str = "Exception"
    message: str = ""
    file: str | None = None
    line: int | None = None
    column: int | None = None
    source_line: str | None = None
    traceback: list[str] = field(default_factory=list)
    hint: str | None = None


@dataclass(frozen=True)
class JobEnvelope:
    """The part of every job's report that the child harness adds (sandbox/harness/child.py)."""

    status: Literal["ok", "user_error"]
    error: UserErrorReport | None = None
    isolation: dict[str, IsolationReport] = field(default_factory=dict)
    setup_s: float = 0.0
    job_s: float = 0.0


# --- the candidate job (run_accuracy, explain_failure's trials) ------------------------------------


@dataclass(frozen=True)
class OverrunReport:
    """An output allocation whose guard margins a store changed (sandbox/harness/guards.py)."""

    shape: list[int]
    bytes_before: int
    bytes_after: int


@dataclass(frozen=True)
class MarginReadReport:
    """A tensor whose margins enabled load lanes read (sandbox/harness/read_watch.py)."""

    tensor: str
    shape: list[int]
    elements_before: int
    elements_after: int
    lines: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class IndexNamesReport:
    """The names whose values a traced load's index took along one dimension of an input."""

    line: int
    input: int
    dim: int
    names: list[str]


@dataclass(frozen=True)
class StoreCollisionReport:
    """A store line that wrote one element of an output twice in one launch (two programs, or two lanes)."""

    output: int  # the output's position
    line: int
    first_line: int  # the line of the store whose value it overwrote (the same line: another program's or lane's)
    stores: int  # stores that hit an element another program (or lane) of the launch had written
    index: int  # the first such element, a flat index of the output
    programs: list[list[int]]  # the grid points of its first and second writer


@dataclass(frozen=True)
class AccessTraceReport:
    """explain_failure's access trace of the first seed's forward (sandbox/harness/access_trace.py)."""

    #: per sampled output element, its writer and the input elements it read (read by
    #: tools/diagnosis/traced.py, which checks each field it uses)
    samples: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    programs: int = 0
    index_names: list[IndexNamesReport] = field(default_factory=list)
    collisions: list[StoreCollisionReport] = field(default_factory=list)


@dataclass(frozen=True)
class CandidateSeedReport:
    seed: int
    launches: int
    forward_s: float
    mutated_inputs: list[int] = field(default_factory=list)
    out_of_bounds_writes: list[OverrunReport] = field(default_factory=list)
    #: None: not watched (compiled backends)
    out_of_bounds_reads: list[MarginReadReport] | None = None
    trace: AccessTraceReport | None = None


@dataclass(frozen=True)
class DeterminismReport:
    checked: bool
    bitwise_equal: bool | None = None
    differing_elements: int | None = None
    max_abs_diff: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class ProvenanceOutput:
    elements: int
    unchanged: int
    comparable: bool
    floating: bool | None = None
    nonfinite: int = 0


@dataclass(frozen=True)
class ProvenanceReport:
    """The nudged forward's counts (sandbox/harness/provenance.py)."""

    checked: bool
    error: str = ""
    nudged_elements: int = 0
    nudged_sites: int | None = None
    outputs: list[ProvenanceOutput] = field(default_factory=list)
    #: provenance.LaunchReads: the launches' unchanged tensor arguments by where they came from
    reads: dict[str, int] = field(default_factory=dict)
    computed_by: list[str] = field(default_factory=list)
    input_tensors: int = 0  # the non-empty inputs, parameters and buffers the nudged forward was given


@dataclass(frozen=True)
class DeviceTimeReport:
    """The profiler's view of the nudged forward on cuda (sandbox/harness/device_time.py)."""

    measured: bool
    note: str = ""
    total_us: float = 0.0
    triton_us: float = 0.0
    fills_and_copies_us: float = 0.0
    other: list[tuple[str, float]] = field(default_factory=list)


@dataclass(frozen=True)
class CandidateReport(JobEnvelope):
    """The candidate job's report (sandbox/harness/candidate.py), whole or partial (a forward raised)."""

    seeds: list[CandidateSeedReport] = field(default_factory=list)
    input_guard: Literal["nan", "zero"] | None = None
    launches: int = 0
    kernels: dict[str, int] = field(default_factory=dict)
    poisoned_allocations: int = 0
    torch_calls: dict[str, int] = field(default_factory=dict)
    determinism: DeterminismReport | None = None
    provenance: ProvenanceReport | None = None
    device_time: DeviceTimeReport | None = None

    def overruns(self) -> int:
        """Output allocations whose margins a store changed, over the seeds."""
        return sum(len(s.out_of_bounds_writes) for s in self.seeds)

    def margin_reads(self) -> int:
        """Elements loads read in the guard margins, over the seeds (0 where not watched)."""
        return sum(r.elements_before + r.elements_after for s in self.seeds for r in s.out_of_bounds_reads or [])


# --- the compile jobs (compile_kernel) -------------------------------------------------------------


@dataclass(frozen=True)
class KernelReport:
    """One compiled (or failed) kernel: sandbox/harness/compile.py on a device, offline.py for sm_90."""

    name: str
    target: str
    compiled: bool
    registers: int | None = None
    spills: int | None = None
    shared_memory: int | None = None
    num_warps: int | None = None
    num_stages: int | None = None
    compile_s: float | None = None
    error: UserErrorReport | None = None


@dataclass(frozen=True)
class CompileReport(JobEnvelope):
    """The compile job's report: what the module defines, and what its forward launched (a count; on the
    interpreter each launch's signature, for the offline compile job)."""

    kernels_defined: list[str] = field(default_factory=list)
    import_s: float = 0.0
    launched: bool = False
    launches: int | list[dict[str, Any]] = 0
    forward_s: float | None = None
    kernels: list[KernelReport] = field(default_factory=list)


@dataclass(frozen=True)
class OfflineCompileReport(JobEnvelope):
    kernels: list[KernelReport] = field(default_factory=list)


# --- the reference job (goldens, explain's trials) --------------------------------------------------


@dataclass(frozen=True)
class ReferenceSeedReport:
    seed: int
    fingerprint: str = ""  # of the seed's (init, inputs): a candidate job that makes them checks it
    inputs_device: str = "given"  # where they were made ("given": sent as files)
    inputs_s: float = 0.0
    cpu_control_s: float | None = None
    golden_s: float | None = None
    cpu_error: str | None = None  # why there is no CPU control
    #: explain_failure: per sampled output element, the inputs its golden depends on
    #: (sandbox/harness/reference.py; read by tools/diagnosis/access.py, which checks what it uses)
    dependencies: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class ReferenceReport(JobEnvelope):
    golden_device: str = "cpu"
    seeds: list[ReferenceSeedReport] = field(default_factory=list)


# --- the timing job (benchmark_kernel) -------------------------------------------------------------


@dataclass(frozen=True)
class RoleTimes:
    """One model's samples in the timing job (sandbox/harness/timing.py), in milliseconds."""

    times_ms: list[float]
    synced_ms: list[float] = field(default_factory=list)
    host_ms: list[float] = field(default_factory=list)
    launch_host_ms: list[float] = field(default_factory=list)
    loop_ms: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class CandidateTimes(RoleTimes):
    repeated_ms: list[float] = field(default_factory=list)
    stale: int = 0
    checked: int = 0
    launches: int = 0
    foreign_stream_launches: int = 0


@dataclass(frozen=True)
class CountReport(JobEnvelope):
    """The FLOP count job's report (mode "count"), and what every timing report also has."""

    flops: int = 0
    param_bytes: int = 0


@dataclass(frozen=True)
class TimingReport(CountReport):
    """The timing job's report (modes "time" and "reference_alone"; the candidate's times only in "time")."""

    device_name: str = ""
    l2_bytes: int = 0
    method: str | None = None
    inputs_varied: bool = False
    inputs_note: str = ""
    input_sets_used: list[int] = field(default_factory=list)
    expected_from: str = "reference"
    spin_ms: float | None = None
    reference: RoleTimes | None = None
    candidate: CandidateTimes | None = None
    #: the clocks the job reads (sandbox/harness/timers.py) that task code replaced
    clocks_changed: list[str] = field(default_factory=list)


#: the record of each job kind's report; kinds not here are checked as a JobEnvelope
RECORDS: dict[str, type[JobEnvelope]] = {
    "reference": ReferenceReport,
    "candidate": CandidateReport,
    "timing": TimingReport,
    "compile": CompileReport,
    "offline_compile": OfflineCompileReport,
}


def check(kind: str, meta: dict) -> None:
    """The harness's check of a report before it is sent: ReportError if it lacks its record's shape."""
    parse(RECORDS.get(kind, JobEnvelope), meta, f"the {kind} job's report")
