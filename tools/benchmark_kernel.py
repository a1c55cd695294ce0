"""benchmark_kernel: how fast the candidate is against the reference, measured so the speedup can be trusted.

Flow: the accepted run (by run_id, or run_accuracy first); the accuracy run's inputs and accepted
outputs; one sandboxed `timing` job (sandbox/harness/timing.py) with the device to itself; here,
in the trusted process: the statistics, the timed outputs checked against the accepted ones, the
roofline and the cheat detectors. The cpu backend (the Triton interpreter) cannot time anything
that matters on a device: it answers `unsupported` with a roofline estimate instead.
"""

from __future__ import annotations

import statistics
import threading
import time

import torch

from sandbox import protocol, reports
from sandbox.harness.common import bitwise_equal, to_device, tree_tensors
from sandbox.pool import JobRequest, JobResult
from tools import faults, goldens, sources
from tools.accuracy import run_accuracy
from tools.bench import detectors, roofline, stats
from tools.compare import CompareInputError, compare_outputs
from tools.compare.options import options_from
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest
from tools.models.bench import (
    BenchmarkRequest,
    BenchmarkResult,
    BenchmarkSettings,
    BenchVerdict,
    Flag,
    LaunchTiming,
    Roofline,
    TimedOutputCheck,
)
from tools.models.task import Timings
from tools.services import TIMING_JOB, Services, progress_reporter, resolve_backend, services
from tools.thresholds import TIMED_OUTPUT_RTOL

CPU_REASON = (
    "the cpu backend runs the Triton interpreter: each kernel program is executed in Python over numpy, so its "
    "time says nothing about the kernel's speed on a device"
)
NEXT_STEPS = {
    "ok": "the speedup holds within speedup.low..high; roofline.candidate.fraction_of_roofline says how much is "
    "left (near 1: at the device's limit)",
    "flagged": "do not trust this speedup: fix what `flags` names, then run_accuracy and benchmark_kernel again",
    "not_accurate": "the candidate must pass run_accuracy before it is timed: call explain_failure(run_id)",
    "unsupported": "run benchmark_kernel with backend='cuda' (or 'npu') on a machine with the device; meanwhile "
    "`estimate` gives the least time the task's bytes and FLOPs allow",
    "runtime_error": "fix the error at error.file:error.line, then run_accuracy and benchmark_kernel again",
    "timeout": "raise timeout_s or lower repetitions; a candidate that passed accuracy should not time out",
    "crashed": "the timing job died: see error; run_accuracy again to check the candidate on this device",
}


class _Task:
    """What is being timed: the sources, the input options, the seeds and the accepted run."""

    def __init__(self, accuracy: RunAccuracyRequest, run_id: str | None, seeds: list[int], backend_name: str | None):
        self.accuracy = accuracy  # as given (paths keep their names in run_accuracy's messages)
        self.run_id = run_id
        self.seeds = seeds
        self.backend_name = backend_name  # where the accepted run ran
        self.reference, self.reference_name = sources.resolve(accuracy.reference, "reference")
        self.candidate, self.candidate_name = sources.resolve(accuracy.candidate, "candidate")

    @property
    def options(self) -> dict:
        a = self.accuracy
        return goldens.input_options(a.dtype, a.value_range, a.input_profile)

    def reference_task(self, backend, request: BenchmarkRequest) -> goldens.ReferenceTask:
        return goldens.ReferenceTask(
            self.reference, self.reference_name, self.options, backend, request.timeout_s, request.memory_mb
        )

    def files(self, *roles: str) -> tuple[dict, dict]:
        """The job's files and their display names."""
        texts = {"reference": self.reference, "candidate": self.candidate}
        names = {"reference": self.reference_name, "candidate": self.candidate_name}
        return {f"{r}.py": texts[r] for r in roles}, {f"{r}.py": names[r] for r in roles}


def _task(request: BenchmarkRequest, svc: Services) -> _Task:
    if request.run_id is not None:
        stored = svc.runs.stored_task(request.run_id)
        accuracy = RunAccuracyRequest.model_validate(stored.model_dump(include=set(RunAccuracyRequest.model_fields)))
        task = _Task(accuracy, request.run_id, list(stored.resolved_seeds), stored.backend_resolved)
        task.reference_name, task.candidate_name = stored.reference_name, stored.candidate_name
        return task
    accuracy = RunAccuracyRequest(
        reference=request.reference or "",
        candidate=request.candidate or "",
        backend=request.backend,
        dtype=request.dtype,
        input_profile=request.input_profile,
        num_seeds=request.input_sets,
        timeout_s=request.timeout_s,
        memory_mb=request.memory_mb,
    )
    return _Task(accuracy, None, [], None)


def _finisher(svc: Services, backend, started: float, limit_notes: tuple[str, ...] | list[str] = ()):
    """finish(verdict, summary, **fields): the result, with the backend, total time, next step and
    the notes of limits lowered to the server's ceilings."""

    def finish(verdict: BenchVerdict, summary: str, **fields) -> BenchmarkResult:
        fields.setdefault("timings", Timings(total_s=0.0))
        fields["timings"].total_s = time.perf_counter() - started
        fields["warnings"] = [*limit_notes, *fields.get("warnings", [])]
        return BenchmarkResult(
            verdict=verdict,
            summary=summary,
            backend=svc.backend_info(backend),
            next_step=NEXT_STEPS[verdict],
            **fields,
        )

    return finish


def benchmark_kernel(
    request: BenchmarkRequest, progress=None, cancel: threading.Event | None = None
) -> BenchmarkResult:
    """Raises ToolInputError when the request cannot be run (unknown run, bad sources, ...)."""
    started = time.perf_counter()
    report = progress_reporter(progress)
    svc = services()
    task = _task(request, svc)
    backend = resolve_backend(request.backend)  # a run made elsewhere (e.g. on cpu) is re-run here first

    finish = _finisher(svc, backend, started, request.limit_notes)
    failed = _given_run_failed(task, svc, finish)
    if failed is not None:  # on every backend: a failing run is never timed (nor estimated)
        return failed

    if backend.interpreter:
        report(0.1, "cpu: a roofline estimate instead of timing")
        estimate, warnings = _estimate(request, task, svc, backend, cancel)
        bound = f"{estimate.min_time_ms * 1e3:.3g} us" if estimate.min_time_ms is not None else "unknown"
        return finish(
            "unsupported",
            f"UNSUPPORTED on cpu: {CPU_REASON}; estimate: at least {bound} on {estimate.device} "
            f"({estimate.bytes} bytes, {estimate.flops} FLOPs)",
            run_id=task.run_id,
            reason=CPU_REASON,
            estimate=estimate,
            warnings=warnings,
        )

    if request.cuda_graphs and not backend.cuda_graphs:
        raise ToolInputError(f"cuda_graphs needs backend cuda (this is {backend.name}): pass cuda_graphs=false")

    accepted = _accepted_run(request, task, backend, svc, cancel, report, finish)
    if isinstance(accepted, BenchmarkResult):
        return accepted
    run_id, seeds = accepted
    tensors = svc.runs.tensors(run_id)  # the accepted outputs, where the run store kept them
    return _timed(request, task, run_id, seeds, tensors, backend, svc, cancel, report, finish)


def _given_run_failed(task: _Task, svc: Services, finish) -> BenchmarkResult | None:
    """The not_accurate result for a given run_id whose run did not pass, else None."""
    if task.run_id is None:
        return None
    stored = svc.runs.result(task.run_id)
    if stored.get("verdict") == "pass":
        return None
    return finish(
        "not_accurate",
        f"NOT_ACCURATE run {task.run_id} is {stored.get('verdict')}: {stored.get('summary', '')}",
        run_id=task.run_id,
    )


def _accepted_run(request, task: _Task, backend, svc: Services, cancel, report, finish):
    """(run_id, seeds) of a passing run on `backend`: the given one, or run_accuracy's now; else the
    not_accurate result. A run made on another backend is re-run on this one, on its own seeds."""
    run_id = task.run_id
    if run_id is None or task.backend_name != backend.name:
        report(0.05, f"run_accuracy on {backend.name} first")
        accuracy = task.accuracy.model_copy(
            update={"backend": backend.name, "seeds": task.seeds[: request.input_sets] or None, "store_tensors": True}
        )
        accepted = run_accuracy(accuracy, None, cancel)
        run_id = accepted.run_id
        if accepted.verdict != "pass":
            return finish("not_accurate", f"NOT_ACCURATE {accepted.summary}", run_id=run_id)
        task.seeds = list(svc.runs.stored_task(run_id).resolved_seeds)
    return run_id, task.seeds[: request.input_sets]


def _timed(request, task, run_id, seeds, tensors, backend, svc, cancel, report, finish, extra_options=None):
    """The timing job on the accepted run's inputs, then the analysis. `extra_options`: tests only."""
    report(0.3, "inputs of the accepted run")
    per_seed = _seed_tensors(svc, task.reference_task(backend, request), seeds, cancel)
    given = protocol.given_inputs([(per_seed[seed]["init"], per_seed[seed]["inputs"]) for seed in seeds])
    for k in range(len(seeds)):
        # the run store keeps seed 0's; the others: the reference's, in the job
        if protocol.key(k, "actual") in tensors:
            given[protocol.key(k, "accepted")] = tensors[protocol.key(k, "actual")]
    report(0.4, f"timing on {backend.name} ({request.repetitions} repetitions each)")
    options = _timing_options(request, task) | (extra_options or {})
    job = _timing_job(task, ("reference", "candidate"), seeds, options, given, request, backend, svc, cancel)
    timings = Timings(total_s=0.0, candidate_s=job.wall_s, queued_s=job.queued_s)
    if job.reason == "cancelled" and cancel is not None and cancel.is_set():
        raise ToolInputError("cancelled by the caller")
    base = {"run_id": run_id, "timings": timings, "stdout": job.stdout[-2000:], "stderr": job.stderr[-2000:]}
    fault = faults.process_fault(job, request.timeout_s, "timing job")
    if fault is not None:
        verdict, error = fault
        return finish(verdict, f"{verdict.upper()} {error.message}", error=error, **base)
    try:  # the report comes from the timed job's process: the candidate's code may have changed it
        timed = reports.parse(reports.TimingReport, job.meta, "the timing job's report")
        base["isolation"] = faults.isolation(timed)
        if timed.status != "ok":
            verdict, error = faults.user_error(timed.error)
            verdict = verdict if verdict in ("unsupported", "crashed") else "runtime_error"
            return finish(verdict, faults.user_error_summary(verdict, error), error=error, **base)
        report(0.8, "the reference alone, in a process without the candidate")
        alone = _reference_alone(task, seeds, options, given, request, backend, svc, cancel)
        report(0.9, "statistics, output checks, roofline")
        return _analyse(request, task, per_seed, tensors, timed, job.values, finish, base | alone)
    except faults.MALFORMED_REPORT as exc:
        error = faults.malformed_report("timing job", exc)
        return finish("runtime_error", f"RUNTIME_ERROR malformed_report: {error.message}", error=error, **base)


def _timing_options(request: BenchmarkRequest, task: _Task) -> dict:
    return task.options | {
        "mode": "time",
        "repetitions": request.repetitions,
        "warmup": request.warmup,
        "flush_l2": request.flush_l2,
        "cuda_graphs": request.cuda_graphs,
        "vary_inputs": request.vary_inputs,
        "output_rtol": TIMED_OUTPUT_RTOL,
    }


def _timing_job(task: _Task, roles, seeds, options, given, request, backend, svc: Services, cancel) -> JobResult:
    files, display_names = task.files(*roles)
    request_ = JobRequest(TIMING_JOB, files, display_names, seeds, options, inputs=given, memory_mb=request.memory_mb)
    return svc.pool(backend).run(request_, request.timeout_s, cancel)


def _reference_alone(task: _Task, seeds, options, given, request, backend, svc: Services, cancel) -> dict:
    """{"reference_alone": its times} from a timing job that never loads the candidate (a fresh process
    of the pool), or {"warnings": [why not]}: the joint job's reference time is checked against it, since
    the candidate's import runs in the joint job and can slow the reference there."""
    job = _timing_job(
        task, ("reference",), seeds, options | {"mode": "reference_alone"}, given, request, backend, svc, cancel
    )
    try:
        timed = reports.parse(reports.TimingReport, job.meta, "the reference's timing report")
    except reports.ReportError as exc:  # a report of the reference's process that does not read
        timed, why = None, str(exc)
    else:
        why = timed.error.message if timed.error is not None else "no times"
    if job.reason is None and timed is not None and timed.status == "ok" and timed.reference is not None:
        return {"reference_alone": stats.summarize(timed.reference.times_ms)}
    why = (job.reason or why)[:200]
    return {"warnings": [f"the reference alone could not be timed ({why}): a slowed reference would go unseen"]}


def _seed_tensors(svc: Services, reference: goldens.ReferenceTask, seeds: list[int], cancel) -> dict[int, dict]:
    """Per seed its init, inputs, golden and CPU control (goldens.seed_inputs: consistent with each other)."""
    made = goldens.seed_inputs(svc, reference, seeds, cancel)
    return {
        seed: {"init": init, "inputs": inputs, "golden": entry.golden, "cpu": entry.cpu}
        for seed, (entry, (init, inputs)) in made.items()
    }


def _analyse(
    request, task: _Task, per_seed: dict, tensors, timed: reports.TimingReport, values: dict, finish, base
) -> BenchmarkResult:
    base = dict(base)
    ref, cand = timed.reference, timed.candidate
    if ref is None or cand is None:  # both are always there in a "time" job's report
        raise KeyError("reference" if ref is None else "candidate")
    ref_stats = stats.summarize(ref.times_ms)
    ref_alone = base.get("reference_alone")
    cand_stats = stats.summarize(cand.times_ms)
    repeated = stats.summarize(cand.repeated_ms) if cand.repeated_ms else None
    synced = stats.summarize(cand.synced_ms) if cand.synced_ms else None
    ref_synced = stats.summarize(ref.synced_ms) if ref.synced_ms else None
    speedup = stats.speedup(ref_stats, cand_stats)
    seeds = task.seeds[: request.input_sets]

    check = _check_outputs(task, per_seed, tensors, values, seeds)
    check.repetitions_checked = cand.checked
    check.stale_repetitions = cand.stale

    first = per_seed[seeds[0]]
    as_timed = values.get(protocol.key(0, "timed"), protocol.seed_part(tensors, 0, "actual"))  # its bytes are written
    roof = _roofline(
        request,
        timed.device_name,
        first["inputs"],
        as_timed,
        timed.param_bytes,
        timed.flops,
        request.flush_l2,
    )
    roof.reference = roofline.point(roof, ref_stats.median_ms)
    roof.candidate = roofline.point(roof, cand_stats.median_ms)

    flags: list[Flag] = [
        f
        for f in (
            detectors.stale_output(check),
            detectors.timed_output_mismatch(check),
            detectors.side_stream(cand_stats, synced, cand.foreign_stream_launches, ref_stats, ref_synced),
            detectors.faster_on_repeated_inputs(cand_stats, repeated),
            detectors.beyond_roofline(roof, cand_stats, speedup.value),
            detectors.reference_slowed(ref_stats, ref_alone),
            detectors.clocks_changed(timed.clocks_changed),
        )
        if f is not None
    ]
    warnings = base.pop("warnings", [])
    warnings += [w for w in (detectors.noisy("reference", ref_stats), detectors.noisy("candidate", cand_stats)) if w]
    if not timed.inputs_varied:
        warnings.append(f"inputs {timed.inputs_note or 'not varied'}: a cached output would go unseen")
    if not request.flush_l2:
        warnings.append("warm L2: the bandwidth bound is not checked (L2 can beat the memory bandwidth)")
    if roof.min_time_ms is None:
        warnings.append(f"no peak for {roof.device}: pass peak_gbps and peak_tflops for the roofline check")
    settings = BenchmarkSettings(
        repetitions=request.repetitions,
        warmup=request.warmup,
        flush_l2=request.flush_l2,
        cuda_graphs=request.cuda_graphs,
        vary_inputs=request.vary_inputs,
        input_sets=len(timed.input_sets_used or [seeds[0]]),
        inputs_varied=timed.inputs_varied,
        seeds=list(timed.input_sets_used or seeds[:1]),
    )
    headline = (
        f"speedup {speedup.value:.3g}x [{speedup.low:.3g}, {speedup.high:.3g}] (reference "
        f"{ref_stats.median_ms * 1e3:.4g} us, candidate {cand_stats.median_ms * 1e3:.4g} us, median of "
        f"{cand_stats.n}) on {timed.device_name}"
    )
    fraction = roof.candidate.fraction_of_roofline if roof.candidate else None
    if fraction is not None:
        headline += f"; candidate at {fraction:.0%} of the roofline"
    launch = _launch(ref, cand)
    if launch is not None:
        headline += (
            f"; calls back to back, launch included: {launch.speedup:.3g}x (host launch: reference "
            f"{launch.reference_host_us:.3g} us, candidate {launch.candidate_host_us:.3g} us)"
        )
        if launch.speedup < 1 <= speedup.value:
            warnings.append(
                f"launch-bound: faster on the device ({speedup.value:.3g}x) but slower per call with the launch "
                f"({launch.speedup:.3g}x): its forward costs {launch.candidate_host_us:.3g} us of host time against "
                f"the reference's {launch.reference_host_us:.3g} us; at this size the launch decides"
            )
    verdict = "flagged" if flags else "ok"
    summary = f"FLAGGED {', '.join(f.id for f in flags)}: {headline}" if flags else f"OK {headline}"
    return finish(
        verdict,
        summary,
        device=timed.device_name,
        method=timed.method,
        settings=settings,
        reference=ref_stats,
        candidate=cand_stats,
        speedup=speedup,
        launch=launch,
        roofline=roof,
        flags=flags,
        output_check=check,
        repeated_input_median_ms=repeated.median_ms if repeated else None,
        synchronized_median_ms=synced.median_ms if synced else None,
        warnings=warnings,
        **base,
    )


def _launch(ref: reports.RoleTimes, cand: reports.CandidateTimes) -> LaunchTiming | None:
    """The launch phase's medians (none when the forwards were too long for it to matter)."""
    if not (ref.loop_ms and cand.loop_ms and ref.launch_host_ms and cand.launch_host_ms):
        return None
    ref_call, cand_call = statistics.median(ref.loop_ms) * 1e3, statistics.median(cand.loop_ms) * 1e3
    return LaunchTiming(
        reference_host_us=statistics.median(ref.launch_host_ms) * 1e3,
        candidate_host_us=statistics.median(cand.launch_host_ms) * 1e3,
        reference_call_us=ref_call,
        candidate_call_us=cand_call,
        speedup=ref_call / cand_call if cand_call > 0 else float("inf"),
    )


def _check_outputs(task: _Task, per_seed: dict, tensors: dict, values: dict, seeds: list[int]) -> TimedOutputCheck:
    """The timed launches' last outputs: bitwise against the accepted ones the run store kept, else
    (a nondeterministic kernel, or a seed whose output was not kept) by the comparator against the golden."""
    timed = {k: values[protocol.key(k, "timed")] for k in range(len(seeds)) if protocol.key(k, "timed") in values}
    if not timed:
        return TimedOutputCheck(final_outputs="mismatch", detail="the timing job returned no timed outputs")
    options = options_from(task.accuracy)
    identical = compared = 0
    for k, out in timed.items():
        accepted = tensors.get(protocol.key(k, "actual"))
        if accepted is not None and _bitwise(out, accepted):
            identical += 1
            continue
        g = per_seed[seeds[k]]
        compared += 1
        try:
            report = compare_outputs(_like(out, g["golden"]), g["golden"], g["cpu"], options=options)
        except CompareInputError as exc:
            return TimedOutputCheck(final_outputs="mismatch", detail=f"seed {seeds[k]}: {exc}")
        if not report.passed:
            return TimedOutputCheck(final_outputs="mismatch", detail=f"seed {seeds[k]}: {report.summary}")
    detail = f"{identical} input set(s) bit for bit as accepted"
    if not compared:
        return TimedOutputCheck(final_outputs="identical", detail=detail)
    return TimedOutputCheck(
        final_outputs="within_accuracy",
        detail=f"{detail}, {compared} passing the comparator against the golden "
        "(output not kept, or not bit-identical)",
    )


def _like(tree, reference):
    """`tree` on the device of `reference`'s tensors (goldens may be resident on the comparing GPU)."""
    found = tree_tensors(reference)
    return to_device(tree, found[0].device) if found and found[0].device.type != "cpu" else tree


def _bitwise(a, b) -> bool:
    x, y = tree_tensors(a), tree_tensors(b)
    return len(x) == len(y) and all(bitwise_equal(p, q) for p, q in zip(x, y, strict=True))


def _nbytes(tree) -> int:
    return sum(t.numel() * t.element_size() for t in tree_tensors(tree))


def _narrowest_float(*trees) -> str | None:
    floats = [t for tree in trees for t in tree_tensors(tree) if t.is_floating_point()]
    if not floats:
        return None
    return str(min(floats, key=lambda t: t.element_size()).dtype).removeprefix("torch.")


def _roofline(request, device, inputs, outputs, param_bytes, counted_flops, bandwidth_checked) -> Roofline:
    moved = request.bytes_moved or _nbytes(inputs) + param_bytes + _nbytes(outputs)
    return roofline.build(
        device,
        moved,
        "given" if request.bytes_moved else "inputs and parameters read once, outputs written once",
        request.flops if request.flops is not None else counted_flops,
        "given" if request.flops is not None else "torch.utils.flop_counter over the reference's forward",
        _narrowest_float(inputs, outputs),
        request.peak_gbps,
        request.peak_tflops,
        bandwidth_checked,
    )


def _estimate(request, task: _Task, svc: Services, backend, cancel) -> tuple[Roofline, list[str]]:
    """cpu: the roofline of the task on `estimate_device`, from the reference's inputs and outputs
    (a sandboxed reference job, cached) and its FLOP count (a small sandboxed job)."""
    if roofline.peak_for(request.estimate_device) is None and not (request.peak_gbps and request.peak_tflops):
        known = ", ".join(p.name for p in roofline.PEAKS)
        raise ToolInputError(
            f"estimate_device {request.estimate_device!r} has no row in the peak table ({known}); "
            "name one of those, or pass peak_gbps and peak_tflops"
        )
    reference = task.reference_task(backend, request)
    seeds = task.seeds[:1] or svc.seeds.draw(reference.key, 1)
    first = _seed_tensors(svc, reference, seeds, cancel)[seeds[0]]
    job = svc.pool(backend).run(
        JobRequest(
            TIMING_JOB,
            *task.files("reference"),
            seeds,
            task.options | {"mode": "count"},
            inputs=protocol.given_inputs([(first["init"], first["inputs"])]),
            memory_mb=request.memory_mb,
        ),
        request.timeout_s,
        cancel,
    )
    warnings = []
    counted = faults.job_report(job, reports.CountReport, "FLOP count", request.timeout_s)
    if isinstance(counted, tuple):  # a fault
        warnings.append(f"FLOPs not counted ({counted[1].message.splitlines()[0]}): the estimate is memory-only")
        counted = reports.CountReport(status="ok")  # nothing counted
    outputs = first["cpu"]
    if outputs is None:  # no CPU control in the task's precision: the golden's elements at the inputs' width
        golden = first["golden"]
        width = max((t.element_size() for t in tree_tensors(first["inputs"]) if t.is_floating_point()), default=4)
        outputs = [
            torch.empty(t.shape, dtype={2: torch.float16, 4: torch.float32}.get(width, torch.float64))
            for t in tree_tensors(golden)
        ]
        warnings.append("output bytes from the golden's shape at the inputs' width (no CPU control)")
    estimate = _roofline(
        request,
        request.estimate_device,
        first["inputs"],
        outputs,
        counted.param_bytes,
        counted.flops,
        True,
    )
    return estimate, warnings
