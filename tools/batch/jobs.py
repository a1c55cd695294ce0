"""A batch's jobs: planned in the driver (sources read once, tasks grouped), run by a worker.

The worker side is evaluate() and warm(): the only code a worker runs, whether it is a thread of
this process, a process pinned to one GPU or a Ray actor. evaluate() is run_accuracy itself, with
the sources the driver read, so a batch result is what the call alone returns.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import Literal

from sandbox.protocol import Blame, KernelEvalError
from tools import goldens, sources
from tools.accuracy import run_accuracy
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest
from tools.models.batch import BatchError, BatchItem
from tools.models.bench import BenchmarkOptions, BenchmarkRequest
from tools.services import resolve_backend, services
from tools.store.seeds import POOL_SIZE

log = logging.getLogger("kernel_eval.batch")

Provided = dict[str, tuple[str, str]]  # source value -> (text, name), as sources.resolve returns them


#: A request's error kind in a batch, by the blame of the error its run raised.
BLAME_KINDS: dict[Blame, Literal["input", "server_fault"]] = {
    "caller": "input",
    "candidate": "input",
    "server": "server_fault",
}


@dataclass
class Job:
    """A unit of work for a worker: judge one request (run), or compute goldens of a task (warm)."""

    kind: Literal["run", "warm"]
    index: int  # the request's position (run); the warm job's own number (warm)
    request: RunAccuracyRequest
    provided: Provided
    task: str  # what decides the goldens: jobs of one task share them
    warm_seeds: list[int] | None = None  # pinned seeds to compute (warm)
    warm_pool_chunk: tuple[int, int] | None = None  # (i, n): the i-th of n slices of the secret pool (warm)
    attempts: int = 0
    rerun_reason: str | None = None
    timing: BenchmarkOptions | None = None  # also time the candidate if it passes (run)

    def payload(self) -> dict:
        """What a worker in another process needs, as plain data."""
        return {
            "kind": self.kind,
            "request": self.request.model_dump(mode="json"),
            "provided": self.provided,
            "warm_seeds": self.warm_seeds,
            "warm_pool_chunk": self.warm_pool_chunk,
            "timing": self.timing.model_dump(mode="json") if self.timing is not None else None,
        }


@dataclass
class Plan:
    runs: list[Job] = field(default_factory=list)
    warms: list[Job] = field(default_factory=list)
    unrunnable: list[BatchItem] = field(default_factory=list)  # sources that cannot be read


def _task_key(request: RunAccuracyRequest, reference_text: str) -> str:
    blob = json.dumps(
        [reference_text, request.backend, request.dtype, request.value_range, request.input_profile], default=str
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def plan(requests: list[RunAccuracyRequest], warm: bool = True) -> Plan:
    """Read every source once, here (where the caller's path roots apply), group requests by task and
    plan the goldens each task needs before its candidates run (warm jobs)."""
    out = Plan()
    cache: dict[tuple[str, str], tuple[str, str]] = {}
    for index, request in enumerate(requests):
        try:
            provided = {}
            for role in ("reference", "candidate"):  # run_accuracy's order, so its first error is ours
                value = getattr(request, role)
                if (value, role) not in cache:
                    cache[value, role] = sources.resolve(value, role)
                provided[value] = cache[value, role]
        except ToolInputError as exc:
            out.unrunnable.append(BatchItem(index=index, error=BatchError(kind="input", message=str(exc))))
            continue
        out.runs.append(Job("run", index, request, provided, _task_key(request, provided[request.reference][0])))
    if warm:
        out.warms = _warm_jobs(out.runs)
    return out


def _warm_jobs(runs: list[Job]) -> list[Job]:
    """Goldens worth computing before a task's candidates: the secret pool when the task's requests
    draw about half of it or more (random draws would otherwise compute it a few seeds per candidate,
    each in a reference job of its own), and the seeds several of its requests pin. Each warm job
    holds at most as many seeds as one of its requests, so it runs under the same timeout."""
    by_task: dict[str, list[Job]] = {}
    for job in runs:
        by_task.setdefault(job.task, []).append(job)
    warms: list[Job] = []
    for task, jobs in by_task.items():
        if len(jobs) < 2:
            continue
        template = jobs[0]
        chunk = max(1, min(len(j.request.seeds) if j.request.seeds else j.request.num_seeds for j in jobs))
        drawn = sum(j.request.num_seeds for j in jobs if not j.request.seeds)
        if drawn >= POOL_SIZE // 2:
            n = -(-POOL_SIZE // chunk)
            warms += [
                Job("warm", 0, template.request, template.provided, task, warm_pool_chunk=(i, n)) for i in range(n)
            ]
        pinned = list(dict.fromkeys(s for j in jobs for s in (j.request.seeds or [])))
        for i in range(0, len(pinned), chunk):
            warms.append(Job("warm", 0, template.request, template.provided, task, warm_seeds=pinned[i : i + chunk]))
    for number, job in enumerate(warms):
        job.index = number
    return warms


# --- the worker side ------------------------------------------------------------------------------


def evaluate(
    request: RunAccuracyRequest,
    provided: Provided,
    cancel: threading.Event | None,
    timing: BenchmarkOptions | None = None,
) -> BatchItem:
    """run_accuracy on one request, then with `timing` benchmark_kernel on its run if it passed; errors
    as the item's error (index filled in by the caller)."""
    with sources.provided(provided):
        try:
            item = BatchItem(index=0, result=run_accuracy(request, None, cancel))
            if timing is not None and item.result is not None and item.result.verdict == "pass":
                item.benchmark = _timed(item.result.run_id, timing, cancel)
            return item
        except KernelEvalError as exc:  # the one root: its blame picks the item's error kind
            kind = "cancelled" if cancel is not None and cancel.is_set() else BLAME_KINDS[exc.blame]
            return BatchItem(index=0, error=BatchError(kind=kind, message=exc.client_text()))
        except Exception as exc:  # noqa: BLE001 - a fault of this server: reported as the item's, the batch goes on
            log.exception("batch request failed inside the server")
            return BatchItem(index=0, error=BatchError(kind="server_fault", message=f"internal error: {exc!r}"))


def _timed(run_id: str, timing: BenchmarkOptions, cancel: threading.Event | None):
    """benchmark_kernel on a passing run (its device lock: one timed job per device at a time)."""
    from tools.benchmark_kernel import benchmark_kernel  # timing's modules only where timing is asked for

    return benchmark_kernel(BenchmarkRequest(run_id=run_id, **timing.model_dump(exclude_unset=True)), None, cancel)


def warm(
    request: RunAccuracyRequest,
    provided: Provided,
    seeds: list[int] | None,
    pool_chunk: tuple[int, int] | None,
    cancel: threading.Event | None,
) -> bool:
    """Compute (or find cached) the goldens of `seeds`, or of a slice of the task's secret pool.
    False when that failed: the task's requests then run as they would alone, and report it."""
    try:
        with sources.provided(provided):
            text, name = sources.resolve(request.reference, "reference")
        backend = resolve_backend(request.backend)
        options = goldens.input_options(request.dtype, request.value_range, request.input_profile)
        task = goldens.ReferenceTask(text, name, options, backend, request.timeout_s, request.memory_mb)
        store = services()
        if pool_chunk is not None:
            key = task.key
            store.seeds.draw(key, POOL_SIZE)  # makes the pool if the task has none yet
            i, n = pool_chunk
            seeds = sorted(store.seeds.secret(key))[i::n]
        if not seeds:
            return True
        goldens.ensure(store, task, seeds, cancel)
        return True
    except ToolInputError:
        return False
    except Exception:  # noqa: BLE001 - warming is an optimisation: its requests run and report on their own
        log.exception("warming a batch task's goldens failed")
        return False


def failure_reply(kind: str, message: str) -> dict:
    """The reply for a job its worker could not run (what run_payload would return had it failed cleanly):
    every request of a batch is reported, whatever its worker met."""
    if kind == "warm":
        return {"warmed": False}
    return {"item": BatchItem(index=0, error=BatchError(kind="server_fault", message=message)).model_dump(mode="json")}


def run_payload(payload: dict, cancel: threading.Event | None) -> dict:
    """A job from another process (Job.payload()): {"item": BatchItem JSON} or {"warmed": bool}."""
    request = RunAccuracyRequest.model_validate(payload["request"])
    provided = {k: (v[0], v[1]) for k, v in payload["provided"].items()}
    if payload["kind"] == "warm":
        chunk = payload.get("warm_pool_chunk")
        return {"warmed": warm(request, provided, payload.get("warm_seeds"), tuple(chunk) if chunk else None, cancel)}
    timing = BenchmarkOptions.model_validate(payload["timing"]) if payload.get("timing") else None
    return {"item": evaluate(request, provided, cancel, timing).model_dump(mode="json")}
