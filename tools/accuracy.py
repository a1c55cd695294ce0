"""run_accuracy: reference vs candidate on fresh inputs, in the sandbox, judged by the comparator.

Flow: resolve and syntax-check the sources here; goldens for the drawn seeds from
the cache or a sandboxed reference job; one sandboxed candidate job for all seeds; the
comparator, in this trusted process, per seed; the run stored under a run_id.
"""

from __future__ import annotations

import threading
import time

import torch

from sandbox.harness.common import to_device, tree_tensors
from sandbox.pool import JobRequest
from tools import faults, goldens, sources
from tools.compare import CompareInputError, compare_outputs
from tools.compare.options import options_from
from tools.errors import ToolInputError
from tools.models.accuracy import (
    Checks,
    Determinism,
    OutOfBoundsWrite,
    RunAccuracyRequest,
    RunAccuracyResult,
    SeedResult,
)
from tools.models.task import ErrorInfo, IsolationItem, Timings
from tools.services import progress_reporter, resolve_backend, services

MAX_STORED_BYTES = 512 << 20
MAX_WORST_PER_OUTPUT = 3
TAIL = 2000

NEXT_STEPS = {
    "pass": "passes; read `warnings` for latent defects, then optimise",
    "fail": "call explain_failure(run_id) for the failure pattern and its evidence, then suggest_fix(run_id)",
    "compile_error": "fix the error at error.file:error.line, then call compile_kernel again",
    "runtime_error": "fix the error at error.file:error.line (see error.hint), then call run_accuracy again",
    "timeout": "look for an endless loop or an oversized grid; raise timeout_s only if the work is real",
    "crashed": "call explain_failure(run_id); a crash is often an unmasked out-of-bounds access",
    "rejected": "call explain_failure(run_id): the candidate must compute its output with Triton kernels and leave its inputs unchanged",
    "unsupported": "the cpu backend (Triton interpreter) cannot run error.source_line: follow error.hint, or run on backend='cuda'",
}


def _tail(text: str) -> str:
    """The start and the end of a job's output (the sandbox already kept only its head and tail)."""
    if len(text) <= TAIL:
        return text
    head = TAIL // 4
    return f"{text[:head]}\n[... {len(text) - TAIL} characters dropped ...]\n{text[-(TAIL - head) :]}"


class _Run:
    """The state of one run_accuracy call."""

    def __init__(self, request: RunAccuracyRequest, progress, cancel: threading.Event | None):
        self.request = request
        self.report = progress_reporter(progress)
        self.cancel = cancel
        self.started = time.perf_counter()
        self.services = services()
        self.run_id = self.services.runs.new_id()
        self.backend = None
        self.seeds: list[int] = []
        self.timings = Timings(total_s=0.0)
        self.warnings: list[str] = []
        self.isolation: dict[str, IsolationItem] = {}
        self.checks = Checks()
        self.stdout = self.stderr = ""
        self.tensors: dict = {}
        self.reference_text = self.candidate_text = self.reference_name = self.candidate_name = ""
        self.golden_device: str | None = None

    def result(self, verdict: str, summary: str, seeds=None, error: ErrorInfo | None = None) -> RunAccuracyResult:
        self.timings.total_s = time.perf_counter() - self.started
        backend = self.services.backend_info(self.backend, self.golden_device) if self.backend is not None else None
        result = RunAccuracyResult(
            run_id=self.run_id,
            verdict=verdict,
            summary=summary,
            standard=self.request.standard,
            backend=backend,
            seeds=seeds or [],
            checks=self.checks,
            error=error,
            isolation=self.isolation,
            timings=self.timings,
            warnings=self.warnings,
            stdout=_tail(self.stdout),
            stderr=_tail(self.stderr),
            next_step=NEXT_STEPS[verdict],
        )
        self._store(result)
        return result

    def _store(self, result: RunAccuracyResult) -> None:
        task = self.request.model_dump() | {
            "resolved_seeds": self.seeds,
            "backend_resolved": self.backend.name if self.backend else None,
        }
        task["reference"], task["candidate"] = self.reference_text, self.candidate_text
        task["reference_name"], task["candidate_name"] = self.reference_name, self.candidate_name
        tensors = self.tensors if self.request.store_tensors else None
        if tensors and sum(t.numel() * t.element_size() for t in tree_tensors(tensors)) > MAX_STORED_BYTES:
            first = min(k.split("/")[0] for k in tensors)
            tensors = {k: v for k, v in tensors.items() if k.startswith(first + "/") and not k.endswith("/inputs")}
            result.warnings.append(
                f"outputs larger than {MAX_STORED_BYTES >> 20} MiB: only {first} stored, without inputs"
            )
        self.services.runs.save(self.run_id, result.model_dump(mode="json"), task, tensors)


def run_accuracy(
    request: RunAccuracyRequest, progress=None, cancel: threading.Event | None = None
) -> RunAccuracyResult:
    """Raises ToolInputError when the request cannot be run (bad sources, failing reference, ...)."""
    run = _Run(request, progress, cancel)
    run.reference_text, run.reference_name = sources.resolve(request.reference, "reference")
    run.candidate_text, run.candidate_name = sources.resolve(request.candidate, "candidate")
    ref_error = sources.syntax_error(run.reference_text, run.reference_name)
    if ref_error is not None:
        raise ToolInputError(
            f"the reference has a syntax error at {ref_error.file}:{ref_error.line}: {ref_error.message}",
            {"error": ref_error.model_dump()},
        )
    run.backend = resolve_backend(request.backend)
    cand_error = sources.syntax_error(run.candidate_text, run.candidate_name)
    if cand_error is not None:
        return run.result(
            "compile_error",
            f"COMPILE_ERROR {cand_error.file}:{cand_error.line}: {cand_error.message}",
            error=cand_error,
        )

    # --- goldens ---
    options = goldens.input_options(request.dtype, request.value_range, request.input_profile)
    key = goldens.key_for(run.reference_text, options, run.backend)
    if request.seeds:
        run.seeds = list(request.seeds)
        run.services.seeds.pin(key, run.seeds)
    else:
        run.seeds = run.services.seeds.draw(key, request.num_seeds)
    run.report(0.05, f"golden: reference on {len(run.seeds)} seeds")
    gold = goldens.ensure(
        run.services,
        run.backend,
        run.reference_text,
        run.reference_name,
        options,
        run.seeds,
        request.timeout_s,
        request.memory_mb,
        cancel,
    )
    run.timings.golden_s, run.timings.golden_cached = gold.seconds, gold.cached
    run.golden_device = gold.golden_device
    if gold.cpu_missing:
        run.warnings.append(
            f"no CPU same-precision control for seeds {gold.cpu_missing} (the op fails on the CPU in this dtype): judged without it, which is stricter"
        )

    # --- candidate ---
    run.report(0.4, f"candidate: {len(run.seeds)} seeds on {run.backend.name}")
    given = {}
    for i, seed in enumerate(run.seeds):
        given[f"s{i}/init"] = gold.per_seed[seed]["init"]
        given[f"s{i}/inputs"] = gold.per_seed[seed]["inputs"]
    job = run.services.pool(run.backend).run(
        JobRequest(
            "candidate",
            {"candidate.py": run.candidate_text},
            {"candidate.py": run.candidate_name},
            run.seeds,
            options | {"determinism": request.determinism != "off", "poison": True},
            inputs=given,
            memory_mb=request.memory_mb,
        ),
        request.timeout_s,
        cancel,
    )
    run.timings.candidate_s, run.timings.queued_s = job.wall_s, job.queued_s
    run.stdout, run.stderr = job.stdout, job.stderr
    if job.reason == "cancelled" and cancel is not None and cancel.is_set():
        raise ToolInputError("cancelled by the caller")
    fault = faults.process_fault(job, request.timeout_s, "candidate")
    if fault is not None:
        verdict, error = fault
        return run.result(verdict, f"{verdict.upper()} {error.message}", error=error)
    meta = job.meta
    run.isolation = faults.isolation(meta)
    _fill_checks(run, meta)
    if meta.get("status") != "ok":
        verdict, error = faults.user_error(meta.get("error", {}))
        return run.result(verdict, faults.user_error_summary(verdict, error), error=error)
    if request.require_kernel_launch and run.checks.kernel_launches == 0:
        called = ", ".join(list(run.checks.torch_calls)[:6]) or "no torch function either"
        return run.result(
            "rejected",
            f"REJECTED no_kernel_launched: the forward launched 0 Triton kernels (it called {called})",
            error=ErrorInfo(
                phase="forward",
                type="no_kernel_launched",
                message=f"0 Triton kernel launches; torch calls: {called}",
                hint="compute the output with a @triton.jit kernel, not with torch ops or the reference",
            ),
        )
    if run.checks.input_mutation:
        return run.result(
            "rejected",
            f"REJECTED input_mutation: the forward changed input(s) {run.checks.input_mutation}",
            error=ErrorInfo(
                phase="forward",
                type="input_mutation",
                message=f"inputs {run.checks.input_mutation} differ after the forward",
                hint="write results to a new output tensor, never into an input",
            ),
        )

    # --- compare ---
    run.report(0.8, "comparing")
    t0 = time.perf_counter()
    device = _compare_device(run.backend)
    options = options_from(request)
    seeds_meta = meta.get("seeds", [])
    seeds = []
    for i, seed in enumerate(run.seeds):
        g = gold.per_seed[seed]
        actual = job.values.get(f"s{i}/actual")
        try:
            report = compare_outputs(
                _to(actual, device), _to(g["golden"], device), _to(g["cpu"], device), options=options
            )
        except CompareInputError as exc:
            raise ToolInputError(str(exc)) from None
        run.tensors |= {
            f"s{i}/actual": actual,
            f"s{i}/golden": g["golden"],
            f"s{i}/cpu": g["cpu"],
            f"s{i}/inputs": g["inputs"],
        }
        for output in report.outputs:
            output.worst = output.worst[:MAX_WORST_PER_OUTPUT]
        seed_meta = seeds_meta[i] if i < len(seeds_meta) else {}
        seeds.append(
            SeedResult(
                seed=seed,
                passed=report.passed,
                summary=report.summary,
                outputs=report.outputs,
                forward_s=seed_meta.get("forward_s"),
            )
        )
        run.warnings.extend(f"seed {seed}: {w}" for w in report.warnings)
    run.timings.compare_s = time.perf_counter() - t0
    _compact(seeds)
    run.warnings = _dedupe_warnings(run.warnings)
    nondeterministic = _determinism_problem(run.checks.determinism, run.seeds[0], request.determinism)
    if nondeterministic:
        run.warnings.append(nondeterministic)
    failing = [s for s in seeds if not s.passed]
    verdict = "fail" if failing or run.checks.out_of_bounds_writes else "pass"
    if failing:
        summary = f"FAIL ({len(failing)}/{len(seeds)} seeds) {_headline(failing[0].summary)}"
    elif run.checks.out_of_bounds_writes:
        w = run.checks.out_of_bounds_writes[0]
        summary = (
            f"FAIL out_of_bounds_write: the values match, but a store wrote {w.bytes_after + w.bytes_before} byte(s) "
            f"past the ends of a {tuple(w.shape)} output allocation (seed {w.seed}): a missing store mask"
        )
    elif nondeterministic and request.determinism == "require":
        verdict = "fail"
        summary = f"FAIL (determinism='require') {nondeterministic}; every seed passes the comparator"
    else:
        summary = f"PASS ({len(seeds)}/{len(seeds)} seeds) {_headline(seeds[0].summary)}"
    run.report(1.0, "done")
    return run.result(verdict, summary, seeds)


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


def _compare_device(backend) -> str:
    """Compare on the GPU when the candidate ran on one: this process never forks sandboxes (the
    zygote is a separate program), so using CUDA here is safe, and 16M elements compare in
    milliseconds instead of ~0.5 s on the CPU."""
    if backend.name == "cuda" and torch.cuda.is_available():
        return "cuda"
    return "cpu"


def _to(tree, device: str):
    return tree if device == "cpu" else to_device(tree, device)


def _headline(summary: str) -> str:
    """A seed's summary without its 'FAIL three_dim float16 output: ' prefix (kept for structural errors)."""
    text = summary.removeprefix("PASS ").removeprefix("FAIL ")
    if text.startswith(("three_dim ", "catlass ", "assert_close ", "exact ")):
        return text.split(": ", 1)[-1]
    return text


def _fill_checks(run: _Run, meta: dict) -> None:
    mutated = sorted({i for s in meta.get("seeds", []) for i in s.get("mutated_inputs", [])})
    det = meta.get("determinism")
    overruns = [
        OutOfBoundsWrite(seed=int(s.get("seed", 0)), **w)
        for s in meta.get("seeds", [])
        for w in s.get("out_of_bounds_writes", [])
    ]
    run.checks = Checks(
        out_of_bounds_writes=overruns,
        input_guard=meta.get("input_guard"),
        kernel_launches=int(meta.get("launches", 0)),
        kernels={str(k): int(v) for k, v in (meta.get("kernels") or {}).items()},
        input_mutation=mutated,
        poisoned_allocations=int(meta.get("poisoned_allocations", 0)),
        determinism=Determinism(
            **{k: det.get(k) for k in ("checked", "bitwise_equal", "differing_elements", "max_abs_diff")},
            note=det.get("error"),
        )
        if isinstance(det, dict) and "checked" in det
        else None,
        torch_calls={str(k): int(v) for k, v in (meta.get("torch_calls") or {}).items()},
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
