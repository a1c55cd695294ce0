"""Batch evaluation: many run_accuracy requests at once, on every sandbox slot and GPU of this machine
(engine 'local') or on a Ray cluster (engine 'ray').

    report = run_batch([RunAccuracyRequest(reference=ref, candidate=c) for c in candidates])
    report.items[i].result   # what run_accuracy(requests[i]) returns alone: verdict, checks, run_id

Every request is judged by tools.accuracy.run_accuracy itself, on a worker; the batch adds only the
scheduling (tools.batch.scheduler): sources read once here, a task's goldens computed before its
candidates, candidates kept on the worker holding their goldens, lost workers' jobs rerun once.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

from tools import sources
from tools.batch.jobs import plan
from tools.batch.local import local_workers
from tools.batch.scheduler import Scheduler
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest
from tools.models.batch import (
    BatchCandidate,
    BatchItem,
    BatchReport,
    Engine,
    RunAccuracyBatchRequest,
    RunAccuracyBatchResult,
)
from tools.models.bench import BenchmarkOptions
from tools.services import progress_reporter, resolve_backend

ENGINES = ("local", "ray")


def _backend_name(requests: Sequence[RunAccuracyRequest]) -> str:
    """The backend most requests resolve to (sizes the workers); one that cannot resolve is the
    request's own error, reported by its run."""
    names = Counter()
    for request in requests:
        try:
            names[resolve_backend(request.backend).name] += 1
        except ToolInputError:
            continue
    return names.most_common(1)[0][0] if names else "cpu"


def run_batch(
    requests: Sequence[RunAccuracyRequest],
    engine: Engine = "local",
    *,
    ray_address: str | None = None,
    ray_actors: int | None = None,
    ray_actor_home: str | None = None,
    devices: list[str] | None = None,
    affinity: Literal["prefer", "strict"] = "prefer",
    progress=None,
    cancel: threading.Event | None = None,
    on_item: Callable[[BatchItem], None] | None = None,
    on_workers: Callable[[list], None] | None = None,
    benchmark: BenchmarkOptions | None = None,
) -> BatchReport:
    """Judge every request; items in input order, each what run_accuracy returns for it alone.

    engine 'local': threads over this process's sandbox pool; with several GPUs (or `devices`,
    CUDA_VISIBLE_DEVICES entries) one worker process per device. engine 'ray': one actor per GPU or
    CPU of the cluster at `ray_address` (or a new local one), `ray_actors` to use fewer, `ray_actor_home`
    for the actors' state directory (their runs are copied into this process's run store).
    progress(fraction, message) and on_item(item) follow each finished request; `cancel` stops the
    batch (requests not judged by then are items with error kind 'cancelled'). `benchmark`: also time
    every request that passes (benchmark_kernel on its run, by the worker that judged it; one timed
    job per device at a time), in the item's `benchmark`."""
    if engine not in ENGINES:
        raise ToolInputError(f"unknown engine {engine!r}; use local or ray")
    started = time.perf_counter()
    report = progress_reporter(progress)
    the_plan = plan(list(requests))
    for job in the_plan.runs:
        job.timing = benchmark
    total = len(requests)
    finished = 0

    def item_done(item: BatchItem) -> None:
        nonlocal finished
        finished += 1
        what = item.result.summary if item.result is not None else f"error: {item.error.message if item.error else ''}"
        report(finished / max(total, 1), f"{finished}/{total} done: request {item.index}: {what[:160]}")
        if on_item is not None:
            on_item(item)

    backend = _backend_name(requests)
    session = None
    if engine == "ray":
        from tools.batch.ray_engine import RaySession

        session = RaySession(ray_address, backend, ray_actors, ray_actor_home)
        workers = session.workers
    else:
        workers = local_workers(backend, devices)
    try:
        if on_workers is not None:
            on_workers(workers)
        for item in the_plan.unrunnable:  # once the workers exist: a batch that cannot start reports nothing
            item_done(item)
        scheduler = Scheduler(
            workers,
            the_plan.runs,
            the_plan.warms,
            cancel,
            on_item=lambda item, _n, _total: item_done(item),
            affinity=affinity,
        )
        items, reruns = scheduler.run()
    finally:
        if session is not None:
            session.close()
        else:
            for worker in workers:
                worker.close()
    items = sorted(items + the_plan.unrunnable, key=lambda i: i.index)
    wall = time.perf_counter() - started
    verdicts = dict(Counter(i.verdict for i in items))
    return BatchReport(
        engine=engine,
        items=items,
        verdicts=verdicts,
        reruns=reruns,
        workers=[w.name for w in workers],
        wall_s=wall,
        candidates_per_minute=60.0 * len(items) / wall if wall > 0 else 0.0,
        summary=_summary(verdicts, len(items), wall, engine, reruns),
    )


def _summary(verdicts: dict[str, int], total: int, wall: float, engine: str, reruns: list[str]) -> str:
    counts = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items(), key=lambda kv: (-kv[1], kv[0])))
    rerun = f"; {len(reruns)} worker(s) lost, their requests rerun" if reruns else ""
    return f"BATCH {total} requests: {counts} ({wall:.1f} s on {engine}{rerun})"


def compact(report: BatchReport, requests: Sequence[RunAccuracyRequest]) -> RunAccuracyBatchResult:
    """One line per candidate; the full results stay in the run store (by run_id)."""
    candidates = []
    for item in report.items:
        name = sources.given_path(requests[item.index].candidate) or f"candidate[{item.index}]"
        result = item.result
        candidates.append(
            BatchCandidate(
                index=item.index,
                candidate=name,
                verdict=result.verdict if result else None,
                summary=result.summary
                if result
                else f"ERROR {item.error.kind}: {item.error.message}"
                if item.error
                else "",
                run_id=result.run_id if result else None,
                error=item.error,
                rerun_reason=item.rerun_reason,
                benchmark_verdict=item.benchmark.verdict if item.benchmark else None,
                speedup=item.benchmark.speedup.value if item.benchmark and item.benchmark.speedup else None,
                benchmark_summary=item.benchmark.summary if item.benchmark else None,
            )
        )
    best = next((c.index for c in candidates if c.verdict == "pass"), None)
    return RunAccuracyBatchResult(
        summary=report.summary,
        verdicts=report.verdicts,
        candidates=candidates,
        best=best,
        engine=report.engine,
        wall_s=report.wall_s,
        candidates_per_minute=report.candidates_per_minute,
        reruns=report.reruns,
    )


def run_accuracy_batch(
    request: RunAccuracyBatchRequest, progress=None, cancel: threading.Event | None = None
) -> RunAccuracyBatchResult:
    """The MCP tool: one reference, many candidates, on the server's batch engine
    (KERNEL_EVAL_BATCH_ENGINE=local|ray, KERNEL_EVAL_RAY_ADDRESS); compact results."""
    import os

    engine = os.environ.get("KERNEL_EVAL_BATCH_ENGINE", "local")
    requests = request.requests()
    report = run_batch(
        requests,
        engine,  # type: ignore[arg-type]
        ray_address=os.environ.get("KERNEL_EVAL_RAY_ADDRESS") or None,
        progress=progress,
        cancel=cancel,
        benchmark=request.benchmark,
    )
    if cancel is not None and cancel.is_set():
        raise ToolInputError("cancelled by the caller")
    return compact(report, requests)
