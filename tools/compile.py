"""compile_kernel: import and compile the candidate in the sandbox, errors on its own lines.

Results are cached by (candidate, reference, backend, options): an agent that calls compile_kernel
and then run_accuracy on the same source, or re-checks an unchanged file, pays once.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict

from sandbox import protocol, reports
from sandbox.backends import COMPILER
from sandbox.pool import JobRequest
from tools import faults, goldens, sources
from tools.models.compile import CompileKernelRequest, CompileKernelResult, KernelInfo
from tools.models.task import ErrorInfo, Timings
from tools.services import progress_reporter, resolve_backend, services

CACHE_SIZE = 256
_cache: OrderedDict[str, dict] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_key(request: CompileKernelRequest, candidate: str, reference: str | None, backend: str) -> str:
    blob = json.dumps([candidate, reference, backend, request.dtype, request.input_profile, request.estimate_resources])
    return hashlib.sha256(blob.encode()).hexdigest()


def compile_kernel(
    request: CompileKernelRequest, progress=None, cancel: threading.Event | None = None
) -> CompileKernelResult:
    result = _compile_kernel(request, progress, cancel)
    if request.limit_notes:  # limits lowered to the server's ceilings: said on every answer, cached or not
        result = result.model_copy(update={"warnings": request.limit_notes + result.warnings})
    return result


def _compile_kernel(request: CompileKernelRequest, progress, cancel: threading.Event | None) -> CompileKernelResult:
    report = progress_reporter(progress)
    started = time.perf_counter()
    candidate, candidate_name = sources.resolve(request.candidate, "candidate")
    reference, reference_name = sources.resolve(request.reference, "reference") if request.reference else (None, "")
    backend = resolve_backend(request.backend)
    key = _cache_key(request, candidate, reference, backend.name)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None:
        result = CompileKernelResult.model_validate(hit)
        result.cached = True
        result.timings = Timings(total_s=time.perf_counter() - started)
        return result

    timings = Timings(total_s=0.0)
    syntax = sources.syntax_error(candidate, candidate_name)
    if syntax is not None:
        return _finish(
            key,
            CompileKernelResult(
                ok=False,
                verdict="compile_error",
                summary=f"COMPILE_ERROR {candidate_name}:{syntax.line}: {syntax.message}",
                error=syntax,
                timings=timings,
                next_step="fix the syntax error and call compile_kernel again",
            ),
            started,
        )
    svc = services()
    given, seeds, options = {}, [0], goldens.input_options(request.dtype, None, request.input_profile)
    if reference is not None:
        report(0.1, "reference inputs")
        task = goldens.ReferenceTask(reference, reference_name, options, backend, request.timeout_s, request.memory_mb)
        seeds = svc.seeds.draw(task.key, 1)
        gold = goldens.ensure(svc, task, seeds, cancel)
        timings.golden_s, timings.golden_cached = gold.seconds, gold.cached
        plan = gold.input_plan(seeds, task)
        if plan is not None:  # the job makes the inputs from the seed, as the reference job did
            options = options | plan.to_options()
        else:
            given = protocol.given_inputs([goldens.seed_inputs(svc, task, seeds, cancel)[seeds[0]][1]])
    report(0.4, "compiling")
    job = svc.pool(backend).run(
        JobRequest(
            "compile",
            {"candidate.py": candidate},
            {"candidate.py": candidate_name},
            seeds,
            options | {"estimate_resources": request.estimate_resources},
            inputs=given or None,
            memory_mb=request.memory_mb,
        ),
        request.timeout_s,
        cancel,
    )
    timings.candidate_s = job.wall_s
    base = {
        "backend": svc.backend_info(backend),
        "timings": timings,
        "stdout": job.stdout[-2000:],
        "stderr": job.stderr[-2000:],
    }
    fault = faults.process_fault(job, request.timeout_s, "candidate", {"candidate.py": (candidate, candidate_name)})
    if fault is not None:
        verdict, error = fault
        return _finish(
            key,
            CompileKernelResult(
                ok=False, verdict=verdict, summary=f"{verdict.upper()} {error.message}", error=error, **base
            ),
            started,
            cache=False,
        )
    try:  # the report comes from the candidate's process: its code may have changed it
        compiled = reports.parse(reports.CompileReport, job.meta, "the compile job's report")
    except reports.ReportError as exc:
        error = faults.malformed_report("candidate", exc)
        summary = f"RUNTIME_ERROR malformed_report: {error.message}"
        result = CompileKernelResult(ok=False, verdict="runtime_error", summary=summary, error=error, **base)
        return _finish(key, result, started, cache=False)
    base["isolation"] = faults.isolation(compiled)
    defined = compiled.kernels_defined
    if compiled.status != "ok":
        verdict, error = faults.user_error(compiled.error)
        return _finish(
            key,
            CompileKernelResult(
                ok=False,
                verdict=verdict,
                summary=faults.user_error_summary(verdict, error),
                error=error,
                kernels_defined=defined,
                **base,
                next_step="fix the error at error.file:error.line and call compile_kernel again",
            ),
            started,
        )
    kernels = [_kernel(k) for k in compiled.kernels]
    if backend.interpreter and isinstance(compiled.launches, list) and compiled.launches:
        report(0.7, "compiling the launched kernels for sm_90, offline")
        offline = _offline_compile(svc, compiled.launches, candidate, candidate_name, seeds, request, cancel)
        if isinstance(offline, CompileKernelResult):
            return _finish(key, offline.model_copy(update={"kernels_defined": defined, **base}), started, cache=False)
        kernels = offline
    failed = [k for k in kernels if not k.compiled]
    warnings = []
    if not defined:
        warnings.append("the module defines no @triton.jit kernel at top level")
    if reference is None:
        warnings.append(
            "no reference given: only the import was checked; pass reference to compile every launched kernel"
        )
    elif not compiled.launches:
        warnings.append("the forward launched no Triton kernel")
    if failed:
        first = failed[0]
        error = first.error
        where = error.where if error else ""
        summary = (
            f"COMPILE_ERROR {first.name}{where}: {error.message if error else 'failed'} "
            f"(the interpreter ran it; the real compiler for {first.target} rejects it)"
        )
        return _finish(
            key,
            CompileKernelResult(
                ok=False,
                verdict="compile_error",
                summary=summary.splitlines()[0],
                error=error,
                kernels_defined=defined,
                launched=True,
                kernels=kernels,
                warnings=warnings,
                **base,
                next_step="rewrite the construct the compiler rejects (see error), then compile_kernel again",
            ),
            started,
        )
    launched = compiled.launched
    names = ", ".join(k.name for k in kernels) or ", ".join(defined) or "none"
    summary = f"OK {len(defined)} kernel(s) defined" + (
        f"; compiled: {names}" if launched else "; imported (no forward run)"
    )
    return _finish(
        key,
        CompileKernelResult(
            ok=True,
            verdict="ok",
            summary=summary,
            kernels_defined=defined,
            launched=launched,
            kernels=kernels,
            warnings=warnings,
            **base,
            next_step="call run_accuracy with the same reference and candidate",
        ),
        started,
    )


def _offline_compile(svc, launches, candidate, candidate_name, seeds, request, cancel):
    """The recorded launches compiled by Triton's real compiler on the `compiler` zygote (one that
    never runs the interpreter). Returns KernelInfos, or a CompileKernelResult when the job broke."""
    unsupported = [
        KernelInfo(
            name=str(launch.get("kernel", "?")),
            target="sm_90 (offline estimate)",
            compiled=False,
            error=ErrorInfo(phase="compile for sm_90", type="unsupported", message=str(launch["unsupported"])),
        )
        for launch in launches
        if "unsupported" in launch
    ]
    compilable = [launch for launch in launches if "unsupported" not in launch]
    if not compilable:
        return unsupported
    job = svc.pool(COMPILER).run(
        JobRequest(
            "offline_compile",
            {"candidate.py": candidate},
            {"candidate.py": candidate_name},
            seeds,
            {"launches": compilable, "estimate_resources": request.estimate_resources},
            memory_mb=request.memory_mb,
        ),
        request.timeout_s,
        cancel,
    )
    offline = faults.job_report(job, reports.OfflineCompileReport, "offline compile", request.timeout_s)
    if isinstance(offline, tuple):  # a fault
        verdict, error = offline
        return CompileKernelResult(
            ok=False,
            verdict="compile_error" if verdict == "compile_error" else "crashed",
            summary=f"COMPILE_ERROR offline compile for sm_90: {error.message}".splitlines()[0],
            error=error,
            launched=True,
            timings=Timings(total_s=0.0),
        )
    return unsupported + [_kernel(k) for k in offline.kernels]


def _kernel(entry: reports.KernelReport) -> KernelInfo:
    return KernelInfo(
        name=entry.name,
        target=entry.target,
        compiled=entry.compiled,
        registers=entry.registers,
        spills=entry.spills,
        shared_memory=entry.shared_memory,
        num_warps=entry.num_warps,
        num_stages=entry.num_stages,
        error=faults.user_error(entry.error)[1] if entry.error is not None else None,
    )


def _finish(key: str, result: CompileKernelResult, started: float, cache: bool = True) -> CompileKernelResult:
    result.timings.total_s = time.perf_counter() - started
    if cache:
        with _cache_lock:
            _cache[key] = result.model_dump(mode="json")
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return result
