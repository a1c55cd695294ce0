"""run_accuracy: reference vs candidate on fresh inputs, in the sandbox, judged by the comparator.

Stages, each a function of typed data:

    prepare    sources resolved and syntax-checked here, backend, seeds drawn (or pinned)
    goldens    FP64 golden + CPU control per seed: from the cache or one sandboxed reference job
    candidate  one sandboxed job for all seeds; it makes the inputs itself from the seeds (checked
               by fingerprint against the reference job's), so no inputs travel as files
    judge      the comparator per seed in this trusted process (on the GPU when the candidate ran
               on one, goldens kept resident there), then the anti-cheat checks and the verdict
    store      the run under its run_id: the result at once, the tensors explain_failure needs
               written after the result is returned

Each stage returns a frozen record for the next (_Sources, _Prepared, goldens.Goldens,
_CandidateRun, _Judged); one that settles the verdict before any comparison (a compile error, a
crash, a rejection) says so with a _Stop, and _conclude builds and stores the result from what ran.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace

import torch

from sandbox import backends, protocol, reports, tensorio
from sandbox.harness.common import tree_tensors
from sandbox.pool import JobRequest, JobResult
from tools import background, faults, goldens, shapes, sources
from tools import thresholds as T
from tools.compare import STANDARDS, CompareInputError, compare_outputs
from tools.compare.options import options_from
from tools.errors import ToolInputError
from tools.models.accuracy import (
    Checks,
    Determinism,
    DeviceTime,
    OutOfBoundsRead,
    OutOfBoundsWrite,
    Provenance,
    RunAccuracyRequest,
    RunAccuracyResult,
    SeedResult,
    ShapeCheck,
    ShapeRun,
    StoredTask,
    Verdict,
)
from tools.models.task import ErrorInfo, IsolationItem, Timings
from tools.repair.source import analyze as analyze_source
from tools.services import Services, progress_reporter, resolve_backend, services
from tools.store.golden import GoldenEntry
from tools.thresholds import PARTLY_FROM_KERNELS, TRITON_DEVICE_SHARE_WARN

MAX_STORED_BYTES = 512 << 20
MAX_WORST_PER_OUTPUT = 3
TAIL = 2000

NEXT_STEPS = {
    "pass": "passes; read `warnings` for latent defects, then optimise",
    "fail": "call explain_failure(run_id) for the failure pattern and its evidence, then suggest_fix(run_id)",
    "compile_error": "fix the error at error.file:error.line, then call compile_kernel again",
    "runtime_error": "fix the error at error.file:error.line, then call run_accuracy again",
    "timeout": "look for an endless loop or an oversized grid; raise timeout_s only if the work is real",
    "crashed": "call explain_failure(run_id); a crash is often an unmasked out-of-bounds access",
    "rejected": "call explain_failure(run_id): the candidate must compute its output with Triton kernels and leave "
    "its inputs unchanged",
    "unsupported": "the cpu backend (Triton interpreter) cannot run error.source_line: follow error.hint, or run on "
    "backend='cuda'",
}


def _next_step(verdict: str, error: ErrorInfo | None, shape_check: ShapeCheck | None = None) -> str:
    failed = shape_check.first_failure() if shape_check is not None else None
    if failed is not None and verdict == "fail":  # the task's shape passed: the failing size's run has the evidence
        return f"call explain_failure(run_id={failed.run_id!r}) (the run at {shapes.describe(failed.sizes)})"
    step = NEXT_STEPS[verdict]
    if verdict == "runtime_error" and error is not None and error.hint:
        step = step.replace("error.line,", "error.line (error.hint says how),")
    return step


@dataclass(frozen=True)
class _Call:
    """What every stage reads: the request and this call's services."""

    request: RunAccuracyRequest
    report: Callable[[float, str], None]  # progress(fraction, message)
    cancel: threading.Event | None
    services: Services
    run_id: str
    started: float = field(default_factory=time.perf_counter)
    shape_run: bool = False  # a run at other sizes for a shape check: its tensors are kept only if it fails


@dataclass(frozen=True)
class _Stop:
    """A stage decided the verdict before any comparison (compile error, crash, rejection)."""

    verdict: Verdict
    summary: str
    error: ErrorInfo | None = None


@dataclass(frozen=True)
class _Sources:
    reference_text: str
    reference_name: str
    candidate_text: str
    candidate_name: str
    backend: backends.Backend


@dataclass(frozen=True)
class _Prepared:
    sources: _Sources
    task: goldens.ReferenceTask
    seeds: list[int]


@dataclass(frozen=True)
class _CandidateRun:
    """The candidate job and what its report says (read defensively: the candidate's process wrote it)."""

    values: dict  # the job's bundle: per seed index its output under protocol.key(i, "actual")
    #: seed -> the golden of the inputs that travelled as files; it replaces the cached entry
    sent: dict[int, GoldenEntry]
    wall_s: float
    queued_s: float
    stdout: str
    stderr: str
    isolation: dict[str, IsolationItem] = field(default_factory=dict)
    checks: Checks = field(default_factory=Checks)
    forward_s: list[float | None] = field(default_factory=list)  # per seed index, as the job reported
    warnings: list[str] = field(default_factory=list)
    stop: _Stop | None = None

    def entry(self, gold: goldens.Goldens, seed: int) -> GoldenEntry:
        """The golden and CPU control this seed's output is judged against."""
        return self.sent.get(seed) or gold.per_seed[seed]


@dataclass(frozen=True)
class _Judged:
    verdict: Verdict
    summary: str
    seeds: list[SeedResult]
    warnings: list[str]
    actual: dict[int, object]  # seed index -> the candidate's output
    compare_s: float
    cpu_control_wait_s: float


def run_accuracy(
    request: RunAccuracyRequest, progress=None, cancel: threading.Event | None = None
) -> RunAccuracyResult:
    """Raises ToolInputError when the request cannot be run (bad sources, failing reference, ...)."""
    svc = services()
    call = _Call(request, progress_reporter(progress), cancel, svc, svc.runs.new_id())
    src = _sources(call)
    _shape_plan(request, src.reference_text)  # a bad shapes / fixed_sizes request is refused before anything runs
    return _evaluate(call, src)


def _evaluate(call: _Call, src: _Sources, task_gold: goldens.Goldens | None = None) -> RunAccuracyResult:
    """One run: the task's shape, then (when it passes) the shape check. `task_gold`: this is a run at another
    size for the shape check of a run with these goldens (_UnusableShape when the reference breaks here)."""
    request = call.request
    syntax = sources.syntax_error(src.candidate_text, src.candidate_name)
    if syntax is not None:
        stop = _Stop("compile_error", f"COMPILE_ERROR {syntax.file}:{syntax.line}: {syntax.message}", syntax)
        return _conclude(call, src, stop)
    prepared = _prepare(call, src, prefer_cached=task_gold is not None)
    gold = _goldens(call, prepared)
    if task_gold is not None:
        _usable_shape(gold, task_gold, prepared.seeds)
    ran = _candidate(call, prepared, gold)
    if ran.stop is not None:
        return _conclude(call, src, ran.stop, prepared, gold, ran)
    judged = _judge(call, prepared, gold, ran)
    cheat = (
        _not_from_kernels(request, ran.checks, _constant_golden(gold, prepared.seeds))
        if judged.verdict == "pass"
        else None
    )
    outcome: _Stop | _Judged = cheat or judged
    shape_check = None
    if cheat is None and judged.verdict == "pass" and task_gold is None:
        shape_check = _shape_check(call, src, gold, ran.wall_s)
        outcome = _with_shapes(judged, shape_check, request.shapes_mode)
    result = _conclude(call, src, outcome, prepared, gold, ran, shape_check)
    call.report(1.0, "done")
    if not request.seeds and task_gold is None:  # the next calls draw other pool seeds: have their goldens ready
        goldens.fill_pool_in_background(call.services, prepared.task)
    return result


# --- shapes beyond the task's -----------------------------------------------------------------------


class _UnusableShape(Exception):
    """The reference cannot serve as the golden at this size (it raised, or its output is not finite)."""


def _shape_check(call: _Call, src: _Sources, gold: goldens.Goldens, task_wall_s: float) -> ShapeCheck | None:
    """The candidate at other sizes (tools/shapes.py), each a run of its own on one seed, side by side. Each
    size's jobs get a few times what the task's candidate job took, scaled by how much larger the sizes are (a
    kernel that reads past a small input can spin for the whole timeout)."""
    request = call.request
    if request.shapes_mode == "off" or request.shapes == "task":
        return None
    constants, assignments = _shape_plan(request, src.reference_text)
    task_sizes = {name: c.value for name, c in constants.items()}
    check = ShapeCheck(mode=request.shapes_mode, applicable=bool(assignments), task_sizes=task_sizes)
    if not constants:
        check.note = "not applicable (no module-level size constants)"
        return check
    if not assignments:
        check.note = "not applicable (every size constant is in fixed_sizes)"
        return check
    call.report(0.9, f"shape check: {len(assignments)} other size(s)")

    def timeout_s(sizes: dict[str, int]) -> float:
        growth = math.prod(value / task_sizes[name] for name, value in sizes.items())
        bound = T.SHAPE_TIMEOUT_FACTOR * task_wall_s * max(1.0, growth)
        return min(request.timeout_s, max(T.SHAPE_TIMEOUT_MIN_S, bound))

    with ThreadPoolExecutor(max_workers=len(assignments), thread_name_prefix="shape") as workers:
        runs = list(workers.map(lambda s: _shape_run(call, src, gold, constants, s, timeout_s(s)), assignments))
    check.runs = runs
    return check


def _shape_plan(request: RunAccuracyRequest, reference_text: str) -> tuple[dict, list[dict[str, int]]]:
    """The reference's size constants and the assignments to try; ToolInputError for a request that names a
    constant the reference does not have."""
    constants = shapes.size_constants(reference_text)
    unknown = sorted(set(request.fixed_sizes) - set(constants))
    if unknown:
        task_sizes = shapes.describe({name: c.value for name, c in constants.items()}) or "none"
        raise ToolInputError(
            f"fixed_sizes: {', '.join(unknown)} is not a module-level size constant of the reference "
            f"(it has: {task_sizes})"
        )
    fixed = set(request.fixed_sizes)
    try:
        if request.shapes == "fuzz":
            return constants, shapes.fuzzed(constants, request.shape_count, fixed)
        if request.shapes == "task":
            return constants, []
        return constants, shapes.explicit(constants, request.shapes, fixed)
    except shapes.ShapeInputError as exc:
        raise ToolInputError(str(exc)) from None


def _shape_run(call: _Call, src: _Sources, gold, constants, sizes: dict[str, int], timeout_s: float) -> ShapeRun:
    text = shapes.rewrite(src.reference_text, constants, sizes)
    where = shapes.describe(sizes)
    # correctness at this size only: provenance was checked at the task's (it would cost a forward more)
    update = {
        "reference": text,
        "seeds": None,
        "num_seeds": 1,
        "determinism": "off",
        "shapes": "task",
        "require_kernel_launch": False,
    }
    request = call.request.model_copy(update=update | {"timeout_s": timeout_s})
    shape_call = _Call(
        request, lambda *_: None, call.cancel, call.services, call.services.runs.new_id(), shape_run=True
    )
    shape_src = replace(src, reference_text=text, reference_name=f"{src.reference_name} [{where}]")
    try:
        result = _evaluate(shape_call, shape_src, task_gold=gold)
    except (ToolInputError, _UnusableShape) as exc:
        return ShapeRun(sizes=sizes, verdict="skipped", summary=f"the reference cannot be the golden at {where}: {exc}")
    return ShapeRun(sizes=sizes, verdict=result.verdict, summary=result.summary, run_id=result.run_id)


def _usable_shape(gold: goldens.Goldens, task_gold: goldens.Goldens, seeds: list[int]) -> None:
    """_UnusableShape where the reference's golden is not finite at this size but is at the task's."""
    if any(_nonfinite(e.golden) for e in task_gold.per_seed.values()):
        return
    if any(_nonfinite(gold.per_seed[s].golden) for s in seeds):
        raise _UnusableShape("its FP64 output is not finite there (it is at the task's sizes)")


def _nonfinite(tree) -> bool:
    return any(t.is_floating_point() and not bool(torch.isfinite(t).all()) for t in tree_tensors(tree))


def _with_shapes(judged: _Judged, check: ShapeCheck | None, mode: str) -> _Judged:
    """A failure at another size: a warning (warn), or the run's verdict (require); a check that could not
    run says so (every size skipped, or not applicable while required)."""
    if check is None:
        return judged
    failed = check.first_failure()
    if failed is None:
        note = _shape_check_gap(check, mode)
        return replace(judged, warnings=[*judged.warnings, note]) if note else judged
    failures = sum(r.verdict not in ("pass", "skipped", "unsupported") for r in check.runs)
    task = shapes.describe({n: check.task_sizes[n] for n in failed.sizes})
    where = shapes.describe(failed.sizes)
    text = (
        f"correct at the task's {task}, wrong at {failures} of {len(check.runs)} other size(s); at {where}: "
        f"{_without_stderr(failed.summary)} (explain_failure(run_id={failed.run_id!r}) reads that run)"
    )
    if mode == "require":
        return replace(judged, verdict="fail", summary=f"FAIL at {where} (shapes_mode=require): {text}")
    return replace(judged, warnings=[*judged.warnings, f"shape check: {text}"])


def _shape_check_gap(check: ShapeCheck, mode: str) -> str | None:
    skipped = [r for r in check.runs if r.verdict == "skipped"]
    if check.runs and len(skipped) == len(check.runs):
        return (
            "shape check: not run: the reference itself refused every other size "
            f"({_without_stderr(skipped[0].summary)}); pass sizes it accepts with shapes=[{{...}}], or name the sizes "
            "it needs in fixed_sizes"
        )
    if not check.applicable and mode == "require":
        return f"shapes_mode=require, but the shape check does not apply: {check.note}"
    return None


def _without_stderr(summary: str, limit: int = 240) -> str:
    """A run's summary without the stderr it quotes, cut at a word."""
    text = " ".join(summary.split()).split(" stderr:")[0]
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " ..."


def _conclude(
    call: _Call,
    src: _Sources,
    outcome: _Stop | _Judged,
    prepared: _Prepared | None = None,
    gold: goldens.Goldens | None = None,
    ran: _CandidateRun | None = None,
    shape_check: ShapeCheck | None = None,
) -> RunAccuracyResult:
    """The result from what the stages that ran produced; stored before it is returned."""
    timings = Timings(total_s=time.perf_counter() - call.started)
    if gold is not None:
        timings.golden_s, timings.golden_cached = gold.seconds, gold.cached
    if ran is not None:
        timings.candidate_s, timings.queued_s = ran.wall_s, ran.queued_s
    judged = outcome if isinstance(outcome, _Judged) else None
    if judged is not None:
        timings.compare_s, timings.cpu_control_wait_s = judged.compare_s, judged.cpu_control_wait_s
    error = outcome.error if isinstance(outcome, _Stop) else None
    result = RunAccuracyResult(
        run_id=call.run_id,
        verdict=outcome.verdict,
        summary=outcome.summary,
        standard=call.request.standard,
        backend=call.services.backend_info(src.backend, gold.golden_device if gold is not None else None),
        seeds=judged.seeds if judged is not None else [],
        checks=ran.checks if ran is not None else Checks(),
        shapes=shape_check,
        error=error,
        isolation=ran.isolation if ran is not None else {},
        timings=timings,
        warnings=call.request.limit_notes
        + (ran.warnings if ran is not None else [])
        + (judged.warnings if judged is not None else []),
        stdout=_tail(ran.stdout) if ran is not None else "",
        stderr=_tail(ran.stderr) if ran is not None else "",
        next_step=_next_step(outcome.verdict, error, shape_check),
    )
    _store(call, src, result, prepared, gold, ran, judged)
    return result


# --- prepare --------------------------------------------------------------------------------------


def _sources(call: _Call) -> _Sources:
    request = call.request
    reference_text, reference_name = sources.resolve(request.reference, "reference")
    candidate_text, candidate_name = sources.resolve(request.candidate, "candidate")
    ref_error = sources.syntax_error(reference_text, reference_name)
    if ref_error is not None:
        raise ToolInputError(
            f"the reference has a syntax error at {ref_error.file}:{ref_error.line}: {ref_error.message}",
            {"error": ref_error.model_dump()},
        )
    backend = resolve_backend(request.backend)
    return _Sources(reference_text, reference_name, candidate_text, candidate_name, backend)


def _prepare(call: _Call, src: _Sources, prefer_cached: bool = False) -> _Prepared:
    """The task (its key names the reference and the input options) and the seeds: pinned, or drawn
    from the task's secret pool (preferring seeds whose goldens are ready while the pool fills, and
    always for a shape check's run: one cached secret seed serves every later call)."""
    request = call.request
    task = goldens.ReferenceTask(
        src.reference_text,
        src.reference_name,
        goldens.input_options(request.dtype, request.value_range, request.input_profile),
        src.backend,
        request.timeout_s,
        request.memory_mb,
    )
    if request.seeds:
        seeds = list(request.seeds)
        call.services.seeds.pin(task.key, seeds)
    else:
        prefer = prefer_cached or goldens.filling(task.key)
        ready = (lambda s: call.services.goldens.has(task.key, s)) if prefer else None
        seeds = call.services.seeds.draw(task.key, request.num_seeds, ready)
    return _Prepared(src, task, seeds)


# --- goldens --------------------------------------------------------------------------------------


def _goldens(call: _Call, prepared: _Prepared) -> goldens.Goldens:
    call.report(0.05, f"golden: reference on {len(prepared.seeds)} seeds")
    return goldens.ensure(call.services, prepared.task, prepared.seeds, call.cancel, cpu_later=True)


def _cpu_controls(gold: goldens.Goldens, ran: _CandidateRun, seeds: list[int]) -> tuple[float, list[str]]:
    """Wait for CPU controls still computed beside the candidate (a first call): (seconds waited,
    a warning naming the seeds judged without one)."""
    t0 = time.perf_counter()
    gold.wait_cpu()
    waited = time.perf_counter() - t0
    missing = [s for s in seeds if ran.entry(gold, s).cpu is None]
    if not missing:
        return waited, []
    why = f"its job failed: {gold.cpu_note}" if gold.cpu_note else "the op fails on the CPU in this dtype"
    return waited, [f"no CPU same-precision control for seeds {missing} ({why}): judged without it, which is stricter"]


# --- candidate ------------------------------------------------------------------------------------


def _candidate_job(
    call: _Call, prepared: _Prepared, plan: protocol.InputPlan | None
) -> tuple[JobResult, dict[int, GoldenEntry]]:
    """The job, and the goldens of the inputs it was sent as files (none when it made them itself)."""
    request, task, seeds = call.request, prepared.task, prepared.seeds
    files = {"candidate.py": prepared.sources.candidate_text}
    names = {"candidate.py": prepared.sources.candidate_name}
    options = task.options | {
        "determinism": request.determinism != "off",
        "poison": True,
        "provenance": request.require_kernel_launch,
    }
    given, sent = None, {}
    if plan is not None:  # the job makes the inputs from the seeds, as the reference job did
        options |= plan.to_options()
    else:  # the goldens judged must be those of exactly these inputs
        made = goldens.seed_inputs(call.services, task, seeds, call.cancel)
        sent = {seed: entry for seed, (entry, _) in made.items()}
        given = protocol.given_inputs([made[s][1] for s in seeds])
    job = call.services.pool(prepared.sources.backend).run(
        JobRequest("candidate", files, names, seeds, options, inputs=given, memory_mb=request.memory_mb),
        request.timeout_s,
        call.cancel,
    )
    return job, sent


def _inputs_differ(job: JobResult) -> bool:
    try:
        error = reports.parse(reports.JobEnvelope, job.meta).error
    except reports.ReportError:  # judged as malformed where the report is read
        return False
    return error is not None and error.type == protocol.INPUTS_DIFFER


def _candidate(call: _Call, prepared: _Prepared, gold: goldens.Goldens) -> _CandidateRun:
    call.report(0.4, f"candidate: {len(prepared.seeds)} seeds on {prepared.sources.backend.name}")
    plan = gold.input_plan(prepared.seeds, prepared.task)
    job, sent = _candidate_job(call, prepared, plan)
    warnings = []
    if plan is not None and _inputs_differ(job):  # get_inputs is not reproducible: send them as files
        warnings.append(
            "the task's get_inputs() does not make the same inputs from the same seed (random state it does not "
            "take from torch/numpy/random?): its inputs travel as files, which is slower"
        )
        job, sent = _candidate_job(call, prepared, None)
    if job.reason == "cancelled" and call.cancel is not None and call.cancel.is_set():
        raise ToolInputError("cancelled by the caller")
    run = _CandidateRun(job.values, sent, job.wall_s, job.queued_s, job.stdout, job.stderr, warnings=warnings)
    texts = {"candidate.py": (prepared.sources.candidate_text, prepared.sources.candidate_name)}
    fault = faults.process_fault(job, call.request.timeout_s, "candidate", texts)
    if fault is not None:
        verdict, error = fault
        return replace(run, stop=_Stop(verdict, f"{verdict.upper()} {error.message}", error))
    try:  # the report comes from the candidate's process: its code may have changed it
        report = reports.parse(reports.CandidateReport, job.meta, "the candidate's report")
        if report.status == "ok":
            _requested_parts(report, call.request, prepared.sources.backend)
        run = replace(
            run,
            isolation=faults.isolation(report),
            checks=_checks(report),
            forward_s=[s.forward_s for s in report.seeds],
        )
        failed = faults.user_error(report.error) if report.status != "ok" else None
    except faults.MALFORMED_REPORT as exc:
        error = faults.malformed_report("candidate", exc)
        return replace(run, stop=_Stop("rejected", f"REJECTED malformed_report: {error.message}", error))
    if failed is not None:
        verdict, error = failed
        return replace(run, stop=_Stop(verdict, faults.user_error_summary(verdict, error), error))
    fraction = run.checks.provenance.dependent_fraction if run.checks.provenance is not None else None
    if fraction is not None and 0 < fraction < PARTLY_FROM_KERNELS:
        warnings.append(
            f"only {fraction:.0%} of the output depends on what the Triton kernels stored (the rest is computed "
            "without them, or is what the allocation held)"
        )
    computed_by = run.checks.provenance.computed_by if run.checks.provenance is not None else []
    if computed_by:
        warnings.append(
            f"the Triton kernel{'s' * (len(computed_by) > 1)} {', '.join(computed_by[:3])} read tensors torch "
            "computed from the inputs (not an input, nor a cast, view or copy of one): part of the task runs "
            "outside the Triton kernels"
        )
    device = run.checks.device_time
    if device is not None and device.triton_share is not None and device.triton_share < TRITON_DEVICE_SHARE_WARN:
        warnings.append(
            f"only {device.triton_share:.0%} of the forward's device time is in its Triton kernels (the most of the "
            f"rest: {'; '.join(device.other_kernels[:2]) or 'copies'}): torch computes much of this forward"
        )
    return replace(run, stop=_cheat(call.request, run.checks))


def _requested_parts(report: reports.CandidateReport, request: RunAccuracyRequest, backend) -> None:
    """KeyError (a malformed report) when a finished job's report lacks a check it was asked for: a
    report the candidate wrote itself tends to leave out what it does not know to fake."""
    if request.determinism != "off" and report.determinism is None:
        raise KeyError("determinism")
    if request.require_kernel_launch and report.provenance is None:
        raise KeyError("provenance")
    if backend.interpreter and any(seed.out_of_bounds_reads is None for seed in report.seeds):
        raise KeyError("out_of_bounds_reads")


def _no_launch(which: str, checks: Checks) -> _Stop:
    called = ", ".join(list(checks.torch_calls)[:6]) or "no torch function either"
    return _Stop(
        "rejected",
        f"REJECTED no_kernel_launched: {which} launched 0 Triton kernels (it called {called})",
        ErrorInfo(
            phase="forward",
            type="no_kernel_launched",
            message=f"0 Triton kernel launches; torch calls: {called}",
            hint="compute the output with a @triton.jit kernel, not with torch ops or the reference",
        ),
    )


def _constant_golden(gold: goldens.Goldens, seeds: list[int]) -> bool:
    """The first seed's golden outputs each hold one value (every element the same, e.g. a histogram of inputs that
    all fall outside its range): an honest kernel may then store nothing at all and return what it allocated."""
    entry = gold.per_seed.get(seeds[0]) if seeds else None
    leaves = [t for t in tree_tensors(entry.golden) if t.numel()] if entry is not None else []
    return bool(leaves) and all(bool((t == t.reshape(-1)[0]).all()) for t in leaves)


def _not_from_kernels(request: RunAccuracyRequest, checks: Checks, constant_golden: bool = False) -> _Stop | None:
    """A rejection for an output that passed without its forward's kernels: a seed's forward that
    launched none (while the import did), or an output that does not depend on what they stored
    (provenance.py). Asked only of a passing output: a failing one is an honest bug to diagnose (a
    kernel that wrote another buffer than the one returned) more often than a cheat. Where the golden is one
    constant, provenance cannot tell (its note says so): not rejected."""
    if not request.require_kernel_launch:
        return None
    idle = [i for i, n in enumerate(checks.launches_per_forward) if n == 0]
    if idle:
        return _no_launch(f"the forward of seed index {idle[0]}", checks)
    provenance = checks.provenance
    if provenance is None or not provenance.checked:
        return None
    stored_nothing = provenance.floating_output and not provenance.stored_anything
    depends = provenance.dependent_fraction != 0.0 and not stored_nothing
    if depends and not provenance.kernels_read_no_input:
        return None
    if constant_golden:
        checks.provenance = provenance.model_copy(
            update={
                "note": "the golden output holds one value only (every element the same): whether the output depends "
                "on the kernels' stores cannot be told on these inputs; not rejected"
            }
        )
        return None
    called = ", ".join(list(checks.torch_calls)[:6]) or "none recorded (torch functions can be hidden)"
    if depends:
        return _read_no_input(provenance, called)
    return _Stop(
        "rejected",
        "REJECTED output_not_from_kernels: the output does not depend on what the Triton kernels stored "
        f"(nudging every value they stored left it bitwise unchanged); torch calls: {called}",
        ErrorInfo(
            phase="forward",
            type="output_not_from_kernels",
            message="no output element changed when every value the forward's Triton kernels stored was nudged "
            "(floats by 2^-5, masks flipped): the output was computed some other way",
            hint="return what your Triton kernels compute (torch may reshape or finish it, not replace it)",
        ),
    )


def _cheat(request: RunAccuracyRequest, checks: Checks) -> _Stop | None:
    """A rejection for a forward that launched no kernel (when one is required) or changed an input."""
    if request.require_kernel_launch and checks.kernel_launches == 0:
        return _no_launch("the forward", checks)
    if checks.input_mutation:
        return _Stop(
            "rejected",
            f"REJECTED input_mutation: the forward changed input(s) {checks.input_mutation}",
            ErrorInfo(
                phase="forward",
                type="input_mutation",
                message=f"inputs {checks.input_mutation} differ after the forward",
                hint="write results to a new output tensor, never into an input",
            ),
        )
    return None


# --- judge ----------------------------------------------------------------------------------------


def _judge(call: _Call, prepared: _Prepared, gold: goldens.Goldens, ran: _CandidateRun) -> _Judged:
    """The comparator per seed, then the anti-cheat checks that do not need the values, and the verdict."""
    request, seeds = call.request, prepared.seeds
    call.report(0.8, "comparing")
    waited, warnings = _cpu_controls(gold, ran, seeds)
    t0 = time.perf_counter()
    device = _compare_device(prepared.sources.backend)
    options = options_from(request)
    results, actual = [], {}
    for i, seed in enumerate(seeds):
        entry = ran.entry(gold, seed)
        actual[i] = protocol.seed_part(ran.values, i, "actual")
        golden, cpu = (
            (entry.golden, entry.cpu) if device == "cpu" else goldens.device_goldens.get(gold.key, seed, entry, device)
        )
        try:
            report = compare_outputs(_to(actual[i], device), golden, cpu, options=options)
        except CompareInputError as exc:
            raise ToolInputError(str(exc)) from None
        for output in report.outputs:
            output.worst = output.worst[:MAX_WORST_PER_OUTPUT]
        forward_s = ran.forward_s[i] if i < len(ran.forward_s) else None
        results.append(
            SeedResult(
                seed=seed, passed=report.passed, summary=report.summary, outputs=report.outputs, forward_s=forward_s
            )
        )
        warnings.extend(f"seed {seed}: {w}" for w in report.warnings)
        overflowed = _control_overflow(golden, cpu)
        if overflowed:
            warnings.append(
                f"seed {seed}: the CPU control (torch itself, in the task's dtype) is not finite at {overflowed:,} "
                "element(s) where the FP64 golden is: these inputs overflow the task's own dtype (input_profile "
                f"{request.input_profile!r}): a failure there is the inputs', not necessarily the kernel's"
            )
    compare_s = time.perf_counter() - t0
    warnings = _bias_named_in_source(warnings, prepared.sources.candidate_text)
    latent = _error_above_control(results, prepared.sources.candidate_text)
    if latent:
        warnings.append(latent)
    precision = _golden_precision_warning([ran.entry(gold, seed).golden for seed in seeds])
    if precision:
        warnings.append(precision)
    _compact(results)
    warnings = _dedupe_warnings(warnings)
    nondeterministic = _determinism_problem(ran.checks.determinism, seeds[0], request.determinism)
    if nondeterministic:
        warnings.append(nondeterministic)
    verdict, summary = _verdict(request, ran.checks, results, nondeterministic)
    warnings.extend(_read_warnings(ran.checks.out_of_bounds_reads, passed=verdict == "pass"))
    call.report(0.85, "judged")
    return _Judged(verdict, summary, results, warnings, actual, compare_s, waited)


def _verdict(
    request: RunAccuracyRequest, checks: Checks, seeds: list[SeedResult], nondeterministic: str | None
) -> tuple[Verdict, str]:
    failing = [s for s in seeds if not s.passed]
    if failing:
        return "fail", f"FAIL ({len(failing)}/{len(seeds)} seeds) {_headline(failing[0].summary)}"
    if checks.out_of_bounds_writes:
        w = checks.out_of_bounds_writes[0]
        return "fail", (
            f"FAIL out_of_bounds_write: the values match, but a store wrote {w.extent()} of a {tuple(w.shape)} output "
            f"allocation (seed {w.seed}): a missing store mask"
        )
    if nondeterministic and request.determinism == "require":
        return "fail", f"FAIL (determinism='require') {nondeterministic}; every seed passes the comparator"
    return "pass", f"PASS ({len(seeds)}/{len(seeds)} seeds) {_headline(seeds[0].summary)}"


def _bias_named_in_source(warnings: list[str], candidate_text: str) -> list[str]:
    """The comparator sees a one-sided error but not the source: say whether the source has the
    construct its warning suspects (a round-toward-zero cast), or that it has none."""
    if not any("err toward zero" in w for w in warnings):
        return warnings
    facts = analyze_source(candidate_text)
    casts = sorted(facts.rtz_cast + facts.float_to_int_cast)
    seen = (
        f"the source truncates at line {casts[0]} (a round-toward-zero or float-to-int cast)"
        if casts
        else "the source has no round-toward-zero cast: look for what loses magnitude (padding lanes counted "
        "in a mean or a variance, a divisor too large, an accumulator that drops low bits)"
    )
    return [f"{w}; {seen}" if "err toward zero" in w else w for w in warnings]


def _error_above_control(results: list[SeedResult], candidate_text: str) -> str | None:
    """A warning for passing outputs whose error is far above what torch makes in the same precision (an
    fp16 accumulator passes loose thresholds at 700x the control's error), naming a low-precision
    accumulator the source shows."""
    worst = None
    for seed in results:
        for out in seed.outputs:
            cpu = out.cpu_control
            if not out.passed or cpu is None:
                continue
            mere, cpu_mere = out.mere, cpu.mere
            if not (isinstance(mere, float) and isinstance(cpu_mere, float)):
                continue  # NaN / Inf carried as strings: no ratio
            if mere > T.LATENT_ERROR_MIN_MERE and cpu_mere > 0 and mere >= T.LATENT_ERROR_RATIO * cpu_mere:
                ratio = mere / cpu_mere
                if worst is None or ratio > worst[0]:
                    worst = (ratio, seed.seed, out.name, mere, cpu_mere)
    if worst is None:
        return None
    ratio, seed, name, mere, cpu_mere = worst
    lines = analyze_source(candidate_text).low_precision_accumulator
    cause = (
        f"; line {lines[0]} accumulates in low precision"
        if lines
        else "; the source shows no low-precision accumulator (a rounding or an order the reference does not make?)"
    )
    return (
        f"seed {seed}: {name} passes, but its mean relative error is {ratio:.0f}x the CPU control's "
        f"({mere:.3g} vs {cpu_mere:.3g}){cause}"
    )


def _control_overflow(golden, cpu) -> int:
    """Elements where the golden is finite and the CPU control (torch in the task's precision) is not."""
    if cpu is None:
        return 0
    count = 0
    for g, c in zip(tree_tensors(golden), tree_tensors(cpu), strict=False):
        if g.is_floating_point() and c.is_floating_point() and g.shape == c.shape:
            count += int((torch.isfinite(g) & ~torch.isfinite(c.to(g.device))).sum())
    return count


def _golden_precision_warning(goldens_of_seeds: list) -> str | None:
    """The golden is the reference run in float64; a forward that returns a fixed dtype (`x.float()`,
    `.half()`, `dtype=torch.float32` factories) makes it only as precise as that dtype, silently. (One
    that casts back, `.float()...to(x.dtype)`, returns float64 and is not seen here.)"""
    low = sorted(
        {
            str(t.dtype).removeprefix("torch.")
            for t in tree_tensors(goldens_of_seeds)
            if t.is_floating_point() and t.dtype != torch.float64
        }
    )
    if not low:
        return None
    return (
        f"the golden is {', '.join(low)}, not float64: the reference's forward casts to a fixed dtype (x.float(), "
        ".half(), dtype=torch.float32, ...), so it is no more precise than that and errors below it go unseen "
        "(and the small-value and cancellation dimensions judge against its rounding); write the reference with "
        "x.dtype or torch.promote_types so that it runs in float64 for the golden"
    )


def _read_warnings(reads: list[OutOfBoundsRead] | None, passed: bool) -> list[str]:
    """One line per tensor whose guard margins the kernels read (every seed reads the same places)."""
    seen: dict[str, OutOfBoundsRead] = {}
    for r in reads or []:
        seen.setdefault(r.tensor, r)
    lines = []
    for r in seen.values():
        lines.append(
            f"out-of-bounds read: a load read {r.extent()} of {r.tensor} (shape {tuple(r.shape)}, seed {r.seed})"
            + (" in lanes the output does not use" if passed else " (they may feed the failure)")
            + ": a tl.load without the tail mask; on a GPU it reads other memory or faults. Mask the load with "
            "an `other=` that changes nothing (0 for a sum, -inf for a max; explain_failure / suggest_fix: "
            "boundary_mask)"
        )
    return lines


def _determinism_problem(det: Determinism | None, seed: int, mode: str) -> str | None:
    """What the determinism re-run found wrong, or None; a failed re-run only counts under require."""
    if det is None:
        return None
    if det.checked and det.bitwise_equal is False:
        changed = (
            f"{det.differing_elements} element(s)" if det.differing_elements is not None else "the output's structure"
        )
        max_diff = f" (max |diff| {det.max_abs_diff:g})" if det.max_abs_diff is not None else ""
        return f"nondeterministic: re-running seed {seed} changed {changed}{max_diff}, e.g. atomics or a race"
    if not det.checked and mode == "require":
        return f"determinism not established: the re-run of seed {seed} failed ({det.note})"
    return None


def _compact(seeds: list[SeedResult]) -> None:
    """Keep results small for agents (~10k tokens at 16 seeds): full detail for the first seed and
    the first failing one; the others keep their metrics and summary but not the worst elements
    and threshold rows (the run store has everything); error_msg is dropped where it repeats the
    summary."""
    detailed = {0}
    first_failing = next((i for i, s in enumerate(seeds) if not s.passed), None)
    if first_failing is not None:
        detailed.add(first_failing)
    for i, seed in enumerate(seeds):
        for output in seed.outputs:
            if output.error_msg == output.summary:
                output.error_msg = None
            if i not in detailed:
                output.worst, output.thresholds_used, output.warnings = [], {}, []


def _compare_device(backend: backends.Backend) -> str:
    """Compare on the GPU when the candidate ran on one: this process never forks sandboxes (the
    zygote is a separate program), so using CUDA here is safe, and 16M elements compare in
    milliseconds instead of ~0.5 s on the CPU."""
    if backend.compare_on_device and torch.cuda.is_available():
        return backend.device
    return "cpu"


def _to(tree, device: str):
    from sandbox.harness.common import to_device

    return tree if device == "cpu" else to_device(tree, device)


def _headline(summary: str) -> str:
    """A seed's summary without its 'FAIL three_dim float16 output: ' prefix (kept for structural errors)."""
    text = summary.removeprefix("PASS ").removeprefix("FAIL ")
    if text.startswith(tuple(f"{standard} " for standard in (*STANDARDS, "exact"))):  # exact: integer outputs
        return text.split(": ", 1)[-1]
    return text


def _tail(text: str) -> str:
    """The start and the end of a job's output (the sandbox already kept only its head and tail)."""
    if len(text) <= TAIL:
        return text
    head = TAIL // 4
    return f"{text[:head]}\n[... {len(text) - TAIL} characters dropped ...]\n{text[-(TAIL - head) :]}"


def _checks(report: reports.CandidateReport) -> Checks:
    watched = any(s.out_of_bounds_reads is not None for s in report.seeds)
    reads = [OutOfBoundsRead(seed=s.seed, **asdict(r)) for s in report.seeds for r in s.out_of_bounds_reads or []]
    det = report.determinism
    return Checks(
        out_of_bounds_writes=[
            OutOfBoundsWrite(seed=s.seed, **asdict(w)) for s in report.seeds for w in s.out_of_bounds_writes
        ],
        out_of_bounds_reads=reads if watched else None,
        input_guard=report.input_guard,
        kernel_launches=report.launches,
        kernels=report.kernels,
        input_mutation=sorted({i for s in report.seeds for i in s.mutated_inputs}),
        poisoned_allocations=report.poisoned_allocations,
        determinism=Determinism(
            checked=det.checked,
            bitwise_equal=det.bitwise_equal,
            differing_elements=det.differing_elements,
            max_abs_diff=det.max_abs_diff,
            note=det.error,
        )
        if det is not None
        else None,
        provenance=_provenance(report.provenance),
        device_time=_device_time(report.device_time),
        launches_per_forward=[s.launches for s in report.seeds],
        torch_calls=report.torch_calls,
    )


def _read_no_input(provenance: Provenance, called: str) -> _Stop:
    """The output depends on what the kernels stored, but they read none of the inputs: they copied what torch
    computed, or stored constants that torch's answer was combined with."""
    read = ", ".join(f"{n} {kind}" for kind, n in sorted(provenance.kernel_reads.items())) or "no tensor"
    return _Stop(
        "rejected",
        f"REJECTED kernels_read_no_input: the forward's Triton kernels read none of its {provenance.input_tensors} "
        f"input tensors (nor a cast, view or copy of one; they read: {read}); torch calls: {called}",
        ErrorInfo(
            phase="forward",
            type="kernels_read_no_input",
            message="the output depends on what the Triton kernels stored, but no kernel read an input, a parameter "
            "or a cast, view or copy of one: they stored what torch computed, or constants",
            hint="load the inputs in your Triton kernels and compute the output there",
        ),
    )


def _provenance(report: reports.ProvenanceReport | None) -> Provenance | None:
    """The candidate process's counts (provenance.py), summed over its outputs; an output that could
    not be compared (another structure under the nudge) counts as dependent: nothing is claimed."""
    if report is None:
        return None
    if not report.checked:
        return Provenance(checked=False, note=report.error[:300])
    total = sum(o.elements for o in report.outputs)
    unchanged = sum(o.unchanged for o in report.outputs if o.comparable)
    nonfinite = sum(o.nonfinite for o in report.outputs)
    if total == 0 and nonfinite:
        return Provenance(
            checked=False,
            note=f"every output element is NaN or Inf ({nonfinite}), which a nudge leaves as it is: nothing to check",
        )
    return Provenance(
        checked=True,
        nudged_elements=report.nudged_elements,
        nudged_store_sites=report.nudged_sites,
        output_elements=total,
        dependent_elements=total - unchanged,
        floating_output=any(o.floating is True for o in report.outputs),
        kernel_reads=report.reads,
        computed_by=report.computed_by,
        input_tensors=report.input_tensors,
    )


def _device_time(report: reports.DeviceTimeReport | None) -> DeviceTime | None:
    """The candidate process's profile of the nudged forward (sandbox/harness/device_time.py)."""
    if report is None:
        return None
    if not report.measured:
        return DeviceTime(measured=False, note=report.note[:300])
    total, triton = report.total_us, report.triton_us
    return DeviceTime(
        measured=True,
        triton_share=min(1.0, max(0.0, triton / total)) if total > 0 else None,
        triton_us=triton,
        total_us=total,
        other_kernels=[f"{name[:120]}: {us:.1f} us" for name, us in report.other[:3]],
    )


def _dedupe_warnings(warnings: list[str]) -> list[str]:
    """Collapse the same warning repeated for every seed into one line."""
    seen: dict[str, list[str]] = {}
    for w in warnings:
        if w.startswith("seed ") and ": " in w:
            seed, text = w.split(": ", 1)
            seen.setdefault(text, []).append(seed.removeprefix("seed "))
        else:
            seen.setdefault(w, [])
    return [
        f"seeds {', '.join(s)}: {text}" if len(s) > 1 else (f"seed {s[0]}: {text}" if s else text)
        for text, s in seen.items()
    ]


# --- store ----------------------------------------------------------------------------------------


def _store(
    call: _Call,
    src: _Sources,
    result: RunAccuracyResult,
    prepared: _Prepared | None,
    gold: goldens.Goldens | None,
    ran: _CandidateRun | None,
    judged: _Judged | None,
) -> None:
    """The result and task now; the tensors explain_failure needs after the caller has the result
    (readers of the run wait for them: RunStore.tensors)."""
    task = StoredTask.model_validate(
        call.request.model_dump()
        | {
            "resolved_seeds": prepared.seeds if prepared is not None else [],
            "backend_resolved": src.backend.name,
            "reference": src.reference_text,
            "candidate": src.candidate_text,
            "reference_name": src.reference_name,
            "candidate_name": src.candidate_name,
        }
    ).model_dump(mode="json")
    keep = call.request.store_tensors and judged is not None and bool(judged.actual)
    keep = keep and not (call.shape_run and result.verdict == "pass")  # nothing to explain there
    try:
        call.services.runs.save(call.run_id, result.model_dump(mode="json"), task, tensors=None, tensors_pending=keep)
    except OSError as exc:  # a full or broken disk: the verdict stands, the run cannot be used later
        result.warnings.append(
            f"this run was not stored ({exc.strerror or exc}: {call.services.runs.root}): the verdict stands, but "
            f"explain_failure, suggest_fix and benchmark_kernel cannot use run_id {call.run_id}; free the disk"
        )
        return
    if keep:
        assert prepared is not None and gold is not None and ran is not None and judged is not None
        # a CLI process that returns at once waits for them before it exits (background.wait)
        background.start(f"store-{call.run_id}", _store_tensors, call, result, prepared, gold, ran, judged.actual)


def _store_tensors(
    call: _Call,
    result: RunAccuracyResult,
    prepared: _Prepared,
    gold: goldens.Goldens,
    ran: _CandidateRun,
    actual: dict[int, object],
) -> None:
    """Seed 0 and the failing seeds, in that order, while they fit MAX_STORED_BYTES: outputs, goldens,
    CPU controls, and, for a failing run, the inputs (made once more by a reference job when the
    cache has none)."""
    tensors: dict = {}
    note = None
    try:
        indices = [0] + [i for i, s in enumerate(result.seeds) if not s.passed and i != 0]
        failing = result.verdict == "fail"
        seeds = prepared.seeds
        made = goldens.seed_inputs(call.services, prepared.task, [seeds[i] for i in indices]) if failing else {}
        used = 0
        for i in indices:
            seed = seeds[i]
            entry = ran.entry(gold, seed)
            parts = {"actual": actual.get(i), "golden": entry.golden, "cpu": entry.cpu}
            if seed in made:  # the golden that goes with these inputs (see goldens.seed_inputs)
                entry, (_, parts["inputs"]) = made[seed]
                parts |= {"golden": entry.golden, "cpu": entry.cpu}
            size = sum(tensorio.stored_nbytes(t) for t in tree_tensors(list(parts.values())))
            if used + size > MAX_STORED_BYTES:  # every stored byte counts, seed 0's too
                note = f"outputs larger than {MAX_STORED_BYTES >> 20} MiB: seeds from index {i} on not stored"
                if not tensors:
                    note = (
                        f"seed 0's tensors ({size >> 20} MiB) exceed the {MAX_STORED_BYTES >> 20} MiB a run may "
                        "store: none stored; explain_failure works on a run with smaller shapes"
                    )
                break
            used += size
            tensors |= {protocol.key(i, part): value for part, value in parts.items()}
    except Exception as exc:  # noqa: BLE001 - the run stays readable; explain_failure says what is missing
        note = f"tensors not stored: {type(exc).__name__}: {str(exc)[:200]}"
    call.services.runs.save_tensors(call.run_id, tensors, note)
