"""The local engine's workers: threads over this process's sandbox pool, or one process per GPU.

On cpu (and on a machine with one GPU) a batch runs in this process, one thread per slot of the
pool run_accuracy itself uses. With several GPUs each gets a worker process of its own, started
with CUDA_VISIBLE_DEVICES naming that GPU alone: its zygote, its sandboxed jobs and its
comparisons all see one device, and it keeps the goldens of its tasks in its own memory. The run
store and the disk golden cache are the shared $KERNEL_EVAL_HOME (safe across processes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from sandbox import backends
from sandbox.pool import Pool, default_slots
from tools.batch.jobs import Job, evaluate, warm
from tools.batch.scheduler import Done, Outcome, outcome_of
from tools.services import services


def pool_slots(backend_name: str) -> int:
    """How many sandboxed jobs this process's pool for the backend runs at once (it starts nothing)."""
    return Pool.get(backend_name, state_dir=services().home).slots


class ThreadWorker:
    """Jobs in threads of this process, each a plain run_accuracy call."""

    def __init__(self, slots: int, name: str = "local"):
        self.name, self.slots, self.alive = name, slots, True
        self._cancels: set[threading.Event] = set()
        self._lock = threading.Lock()

    def submit(self, job: Job, done: Done) -> None:
        cancel = threading.Event()
        with self._lock:
            self._cancels.add(cancel)

        def work() -> None:
            try:
                if job.kind == "warm":
                    outcome = Outcome(
                        warmed=warm(job.request, job.provided, job.warm_seeds, job.warm_pool_chunk, cancel)
                    )
                else:
                    outcome = Outcome(item=evaluate(job.request, job.provided, cancel, job.timing))
            finally:
                with self._lock:
                    self._cancels.discard(cancel)
            done(self, job, outcome)

        threading.Thread(target=work, name=f"batch-{self.name}", daemon=True).start()

    def cancel(self) -> None:
        with self._lock:
            for event in self._cancels:
                event.set()

    def close(self) -> None:
        self.cancel()


class ProcessWorker:
    """Jobs in a worker process (python -m tools.batch.worker) with its own environment, e.g.
    CUDA_VISIBLE_DEVICES=3. JSON lines both ways; its end (crash, kill) loses the jobs it held."""

    def __init__(self, name: str, env: dict[str, str], slots: int, backend: str):
        self.name, self.slots, self.alive = name, slots, True
        self._jobs: dict[int, tuple[Job, Done]] = {}
        self._next = 0
        self._lock = threading.Lock()
        log_path = Path(services().home) / f"batch-worker-{name}.log"
        package_root = str(Path(__file__).resolve().parent.parent.parent)  # installed or not
        python_path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tools.batch.worker", "--slots", str(slots), "--backend", backend],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=os.environ | {"PYTHONPATH": python_path} | env,
            )
        threading.Thread(target=self._read, name=f"batch-{name}-reader", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _send(self, message: dict) -> bool:
        try:
            assert self.proc.stdin is not None
            with self._lock:
                self.proc.stdin.write((json.dumps(message) + "\n").encode())
                self.proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def submit(self, job: Job, done: Done) -> None:
        with self._lock:
            number, self._next = self._next, self._next + 1
            self._jobs[number] = (job, done)
        if not self._send({"op": "run", "id": number, "payload": job.payload()}):
            self._end()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
                with self._lock:
                    job, done = self._jobs.pop(int(message["id"]))
            except (ValueError, KeyError, TypeError):
                continue
            done(self, job, outcome_of(message, self.name))
        self._end()

    def _end(self) -> None:
        """The process is gone (or unreachable): every job it held is lost."""
        code = self.proc.poll()
        reason = f"worker {self.name} (pid {self.proc.pid}) ended" + (
            f" with status {code}" if code is not None else ""
        )
        with self._lock:
            held, self._jobs = list(self._jobs.values()), {}
        for job, done in held:
            done(self, job, Outcome(lost=reason))

    def cancel(self) -> None:
        self._send({"op": "cancel"})

    def close(self) -> None:
        """Closing stdin ends the worker (its zygote with it); killed if it does not go in time."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as CUDA_VISIBLE_DEVICES entries."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [d.strip() for d in listed.split(",") if d.strip()]
    import torch

    return [str(i) for i in range(torch.cuda.device_count())]


def local_workers(backend: str, devices: list[str] | None) -> list:
    """Threads here, or one worker process per device when there are several (or `devices` is given)."""
    slots = pool_slots(backend)
    # the variable that pins a worker to its device (cpu has none: workers there get the CUDA name, unused)
    pinning = (backends.by_name(backend).visible_devices_env if backend in backends.BACKENDS else None) or (
        "CUDA_VISIBLE_DEVICES"
    )
    if devices is None and backends.by_name(backend).torch_cuda:  # torch.cuda counts them; npu's count is untested
        found = visible_gpus()
        devices = found if len(found) > 1 else None
    if not devices:
        return [ThreadWorker(slots)]
    if backend in backends.BACKENDS:  # the host's cores shared among the GPUs (or the operator's setting)
        slots = default_slots(backends.by_name(backend), gpus=len(devices))
    return [ProcessWorker(f"gpu{d}", {pinning: d}, slots, backend) for d in devices]
