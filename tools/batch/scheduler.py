"""The batch scheduler: jobs onto workers (threads, GPU processes or Ray actors), whatever they are.

- A task's goldens are computed first (its warm jobs), on one worker; its candidates then go to that
  worker, which holds the goldens in memory (and, on a GPU, compares on the GPU that made them).
  affinity='prefer' lets a worker with nothing of its own take another task's candidates (it reads
  the goldens from the shared disk cache, or computes them on another node); 'strict' never does.
- A worker that dies (its process, GPU or node is gone) loses the jobs it held: each runs once
  more on a live worker and the item says so; a job lost twice is reported, never dropped.
- Cancellation stops new work, cancels what runs (its sandbox jobs are killed) and reports every
  request that got no verdict as cancelled.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from tools.batch.jobs import Job
from tools.models.batch import BatchError, BatchItem

CANCEL_GRACE_S = 30.0


@dataclass
class Outcome:
    """What a worker reports for a job: an item (run), warmed (warm), or that the worker was lost."""

    item: BatchItem | None = None
    warmed: bool = False
    lost: str | None = None


Done = Callable[["Worker", Job, Outcome], None]


def outcome_of(reply: dict, worker: str) -> Outcome:
    """The outcome a worker in another process sent (jobs.run_payload's reply)."""
    if "item" in reply:
        item = BatchItem.model_validate(reply["item"])
        item.worker = worker
        return Outcome(item=item)
    return Outcome(warmed=bool(reply.get("warmed")))


class Worker(Protocol):
    name: str
    slots: int
    alive: bool

    def submit(self, job: Job, done: Done) -> None:
        """Start the job; call done(worker, job, outcome) from any thread when it ends."""

    def cancel(self) -> None:
        """Cancel every job it runs; each still reports (as cancelled) through done."""

    def close(self) -> None: ...


class Scheduler:
    def __init__(
        self,
        workers: list[Worker],
        runs: list[Job],
        warms: list[Job],
        cancel: threading.Event | None = None,
        on_item: Callable[[BatchItem, int, int], None] | None = None,
        affinity: Literal["prefer", "strict"] = "prefer",
    ):
        self.workers = workers
        self.queue = list(runs)  # in input order
        self.warms = list(warms)
        self.total = len(runs)
        self.cancel = cancel
        self.on_item = on_item
        self.affinity = affinity
        self.events: queue.Queue = queue.Queue()
        self.running: dict[int, dict[int, Job]] = {id(w): {} for w in workers}  # worker -> id(job) -> job
        self.owner: dict[str, Worker] = {}  # task -> the worker holding its goldens
        self.warming: dict[str, int] = {}  # task -> warm jobs still queued or running
        for job in warms:
            self.warming[job.task] = self.warming.get(job.task, 0) + 1
        self.items: dict[int, BatchItem] = {}
        self.reruns: list[str] = []

    # --- placement ---------------------------------------------------------------------------------
    def _free(self, worker: Worker) -> int:
        return worker.slots - len(self.running[id(worker)]) if worker.alive else 0

    def _owner(self, task: str) -> Worker | None:
        owner = self.owner.get(task)
        return owner if owner is not None and owner.alive else None

    def _claim(self, task: str) -> Worker:
        """The least loaded live worker becomes the task's owner."""
        load = {id(w): 0 for w in self.workers}
        for t, w in self.owner.items():
            if w.alive:
                load[id(w)] += sum(1 for j in self.queue if j.task == t)
        worker = min((w for w in self.workers if w.alive), key=lambda w: (load[id(w)], -self._free(w)))
        self.owner[task] = worker
        return worker

    def _pick(self, worker: Worker) -> Job | None:
        for jobs in (self.warms, self.queue):
            for job in jobs:  # its own tasks first
                if self._owner(job.task) is worker and (jobs is self.warms or not self.warming.get(job.task)):
                    jobs.remove(job)
                    return job
        for jobs in (self.warms, self.queue):
            for job in jobs:  # then a task nobody holds yet
                if self._owner(job.task) is None and self._claim(job.task) is worker:
                    if jobs is self.queue and self.warming.get(job.task):
                        continue  # claimed: its warm jobs come first
                    jobs.remove(job)
                    return job
        if self.affinity == "prefer":
            for job in self.queue:  # idle: another worker's candidates whose goldens are ready
                if not self.warming.get(job.task):
                    self.queue.remove(job)
                    return job
        return None

    def _dispatch(self) -> None:
        for worker in self.workers:
            while self._free(worker) > 0:
                job = self._pick(worker)
                if job is None:
                    break
                job.attempts += 1
                self.running[id(worker)][id(job)] = job
                worker.submit(job, self._done)

    def _done(self, worker: Worker, job: Job, outcome: Outcome) -> None:
        self.events.put((worker, job, outcome))

    # --- outcomes ----------------------------------------------------------------------------------
    def _record(self, item: BatchItem, job: Job, worker: Worker) -> None:
        item.index, item.attempts, item.rerun_reason = job.index, job.attempts, job.rerun_reason
        item.worker = item.worker or worker.name
        self.items[job.index] = item
        if self.on_item is not None:
            self.on_item(item, len(self.items), self.total)

    def _lost(self, worker: Worker, reason: str) -> None:
        """A dead worker: every job it held runs once more elsewhere."""
        worker.alive = False
        lost = list(self.running[id(worker)].values())
        self.running[id(worker)].clear()
        rerun = []
        for job in lost:
            if job.kind == "warm":
                self._warm_finished(job)
                continue
            if job.attempts >= 2 or not any(w.alive for w in self.workers):
                message = f"lost: {reason}; " + (
                    "it had already been rerun once" if job.attempts >= 2 else "no live worker is left"
                )
                self._record(BatchItem(index=job.index, error=BatchError(kind="lost", message=message)), job, worker)
                continue
            job.rerun_reason = f"rerun: {reason}"
            self.queue.insert(0, job)
            rerun.append(job.index)
        if rerun:
            self.reruns.append(f"{reason}: requests {', '.join(map(str, sorted(rerun)))} rerun on another worker")
        else:
            self.reruns.append(f"{reason}: it held no request")

    def _warm_finished(self, job: Job) -> None:
        self.warming[job.task] -= 1

    def _handle(self, worker: Worker, job: Job, outcome: Outcome) -> None:
        if outcome.lost is not None:
            if worker.alive:  # the first report of its death: everything it held runs again
                self._lost(worker, outcome.lost)
            return
        if self.running[id(worker)].pop(id(job), None) is None:
            return  # already handled as lost
        if job.kind == "warm":
            self._warm_finished(job)
        elif outcome.item is not None:
            self._record(outcome.item, job, worker)

    def _in_flight(self) -> int:
        return sum(len(r) for r in self.running.values())

    def run(self) -> tuple[list[BatchItem], list[str]]:
        cancelled = False
        while len(self.items) < self.total:
            if self.cancel is not None and self.cancel.is_set():
                cancelled = True
                break
            self._dispatch()
            if self._in_flight() == 0 and not self.queue and not self.warms:
                break
            if self._in_flight() == 0 and not any(w.alive for w in self.workers):
                break
            try:
                self._handle(*self.events.get(timeout=0.1))
            except queue.Empty:
                continue
        if cancelled:
            self._drain_cancelled()
        for job in self.queue:  # no live worker was left for them
            message = "cancelled before it ran" if cancelled else "no live worker was left to run it"
            kind = "cancelled" if cancelled else "lost"
            self.items.setdefault(job.index, BatchItem(index=job.index, error=BatchError(kind=kind, message=message)))
        return [self.items[i] for i in sorted(self.items)], self.reruns

    def _drain_cancelled(self) -> None:
        """Cancel everything in flight and wait (bounded) for the workers to report."""
        for worker in self.workers:
            if worker.alive:
                worker.cancel()
        deadline = time.monotonic() + CANCEL_GRACE_S
        while self._in_flight() and time.monotonic() < deadline:
            try:
                self._handle(*self.events.get(timeout=0.1))
            except queue.Empty:
                continue
        for running in self.running.values():
            for job in running.values():
                if job.kind == "run":
                    self.queue.append(job)
            running.clear()
