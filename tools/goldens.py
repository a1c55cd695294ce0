"""The golden step: the FP64 golden, the CPU control and the inputs' fingerprint per seed, from the
cache or a sandboxed reference job; and the seeds' inputs as tensors, only when a caller needs them."""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass

from sandbox import backends, protocol, reports
from sandbox.harness.common import tree_tensors
from sandbox.pool import JobRequest
from tools import faults
from tools.errors import ToolInputError
from tools.services import Services
from tools.store.golden import GoldenEntry, bytes_from_env, task_key

log = logging.getLogger("kernel_eval.goldens")

#: seeds per background reference job while a task's pool fills: short, so that a call drawing one
#: of them waits little for its lock
FILL_BATCH = 4
FILL_JOB_TIMEOUT_S = 60.0  # a fill's job: a reference slower than this is filled by the calls themselves
FILL_MAX_S = 300.0  # a whole fill
FILL_MAX_BYTES = 256 << 20  # what a fill may add to the golden cache; a task whose pool would take more is not filled


@dataclass
class Goldens:
    key: str
    per_seed: dict[int, GoldenEntry]
    seconds: float
    cached: bool
    golden_device: str
    #: the CPU controls of freshly computed seeds, still running in their own job (ensure(cpu_later))
    cpu_pending: Future | None = None
    cpu_note: str = ""  # why the controls are missing, when their job failed
    cpu_seconds: float = 0.0

    def wait_cpu(self) -> None:
        """Until the CPU controls are in per_seed (or known to be missing)."""
        if self.cpu_pending is None:
            return
        try:
            self.cpu_seconds = self.cpu_pending.result()
        except Exception as exc:  # noqa: BLE001 - judged without the control, which is stricter
            self.cpu_note = str(exc)[:300]
        self.cpu_pending = None

    def input_plan(self, seeds: list[int], task: ReferenceTask) -> protocol.InputPlan | None:
        """How a job makes these seeds' inputs itself; None when they must travel as files."""
        devices = {self.per_seed[s].inputs_device for s in seeds}
        if len(devices) != 1 or "given" in devices:
            return None
        fingerprints = [self.per_seed[s].fingerprint for s in seeds]
        return protocol.InputPlan(devices.pop(), fingerprints, task.text, task.name)


@dataclass(frozen=True)
class ReferenceTask:
    """What a reference job needs, and the cache key of its goldens."""

    text: str
    name: str
    options: dict  # input options (dtype, value_range, profile)
    backend: backends.Backend
    timeout_s: float
    memory_mb: int

    @property
    def key(self) -> str:
        return key_for(self.text, self.options, self.backend)


def input_options(dtype, value_range, profile) -> dict:
    return {"dtype": dtype, "value_range": list(value_range) if value_range else None, "profile": profile}


#: "cpu": make inputs on the CPU on every backend (KernelBench's inputs, the same tensors for a seed
#: on cpu and cuda; slower for large inputs). Default: on the device the candidate runs on.
INPUTS_DEVICE_ENV = "KERNEL_EVAL_INPUTS_DEVICE"


def inputs_device(backend: backends.Backend) -> str:
    """Where jobs make a task's inputs: on the GPU for cuda (no copies, no files); on the CPU for the
    interpreter, and for npu until torch_npu's device context is tested there."""
    if os.environ.get(INPUTS_DEVICE_ENV, "").strip().lower() == "cpu":
        return "cpu"
    return backend.device if backend.inputs_on_device else "cpu"


def key_for(reference_text: str, options: dict, backend: backends.Backend) -> str:
    return task_key(reference_text, options | {"inputs_device": inputs_device(backend)}, backend.golden_device)


def ensure(
    services: Services,
    task: ReferenceTask,
    seeds: list[int],
    cancel: threading.Event | None,
    cpu_later: bool = False,
    background: bool = False,
) -> Goldens:
    """The goldens of `seeds`. cpu_later: a reference job computes the missing ones' FP64 goldens
    on the device, and a second job their CPU controls meanwhile (Goldens.wait_cpu), so that on a
    first call the CPU control runs beside the candidate's job instead of before it. background:
    work no call waits for (Pool.run's background: deferred and preempted by calls)."""
    key = task.key
    per_seed = {s: v for s in seeds if (v := services.goldens.get(key, s)) is not None}
    missing = [s for s in seeds if s not in per_seed]
    golden_device = task.backend.golden_device
    if not missing:
        return _goldens(key, seeds, per_seed, 0.0, True, golden_device)
    with services.goldens.computing(key, missing, cancel):  # across processes: each golden once
        per_seed |= {s: v for s in missing if (v := services.goldens.get(key, s)) is not None}
        missing = [s for s in seeds if s not in per_seed]
        seconds, pending = 0.0, None
        if missing and cpu_later and task.backend.golden_on_device:
            job, report = _reference_job(services, task, missing, cancel, parts="golden")
            seconds, golden_device = job.wall_s, report.golden_device
            fresh = _entries(job, report, missing)
            per_seed |= fresh
            pending = _cpu_controls_later(services, task, missing, fresh, cancel)
        elif missing:
            job, report = _reference_job(services, task, missing, cancel, background=background)
            seconds, golden_device = job.wall_s, report.golden_device
            per_seed |= _store(services, key, missing, job, report)
    return Goldens(key, per_seed, seconds, not missing, golden_device, cpu_pending=pending)


def _cpu_controls_later(services, task: ReferenceTask, seeds: list[int], entries: dict[int, GoldenEntry], cancel):
    """A job for the seeds' CPU controls in a thread: fills the entries, then caches them whole."""
    done: Future = Future()

    def compute() -> None:
        try:
            job, _ = _reference_job(services, task, seeds, cancel, parts="cpu")
            for i, seed in enumerate(seeds):
                entries[seed].cpu = protocol.seed_part(job.values, i, "cpu")
                services.goldens.put(task.key, seed, entries[seed])
            done.set_result(job.wall_s)
        except BaseException as exc:  # noqa: BLE001 - reported by Goldens.wait_cpu
            done.set_exception(exc)

    threading.Thread(target=compute, name="cpu-controls", daemon=True).start()
    return done


def seed_inputs(
    services: Services, task: ReferenceTask, seeds: list[int], cancel=None
) -> dict[int, tuple[GoldenEntry, tuple]]:
    """Per seed its golden entry and (init, inputs) as tensors, consistent with each other: from
    the cache, else from a reference job that returns the inputs. Where that job's inputs differ
    from the cached entry's (a get_inputs not reproducible from the seed), its golden replaces the
    entry, marked "given": from then on those inputs travel as files."""
    key = task.key
    found = {}
    for seed in seeds:
        entry, inputs = services.goldens.get(key, seed), services.goldens.inputs(key, seed)
        if entry is not None and inputs is not None:
            found[seed] = (entry, (entry.init, inputs))
    missing = [s for s in seeds if s not in found]
    if missing:
        job, report = _reference_job(services, task, missing, cancel, return_inputs=True)
        fresh = _entries(job, report, missing)
        for seed, entry in fresh.items():
            cached = services.goldens.get(key, seed)
            if cached is not None and cached.fingerprint == entry.fingerprint:
                entry = cached
            else:
                entry.inputs_device = "given"
                services.goldens.put(key, seed, entry)
            inputs = protocol.seed_part(job.values, missing.index(seed), "inputs")
            services.goldens.put_inputs(key, seed, inputs)
            found[seed] = (entry, (entry.init, inputs))
    return found


def _goldens(key, seeds, per_seed, seconds, cached, golden_device) -> Goldens:
    return Goldens(key, per_seed, seconds, cached, golden_device)


def _cpu_threads(services: Services, backend) -> int:
    """The CPU control's threads: all cores but two (a 4096^3 fp32 matmul takes 0.44 s on 4 of the
    H200 host's 16 cores, 0.12 s on 16); the candidate job beside it needs about one core for its
    Triton compile and the trusted process one."""
    return max(1, (os.cpu_count() or 1) - 2)


def _reference_job(
    services: Services,
    task: ReferenceTask,
    seeds,
    cancel,
    return_inputs: bool = False,
    parts: str = "all",
    background: bool = False,
):
    """parts: all | golden (no CPU control) | cpu (the CPU control only)."""
    options = task.options | {
        "inputs_device": inputs_device(task.backend),
        "cpu_threads": _cpu_threads(services, task.backend),
        "return_inputs": return_inputs,
        "parts": parts,
    }
    job = services.pool(task.backend).run(
        JobRequest(
            "reference",
            {"reference.py": task.text},
            {"reference.py": task.name},
            seeds,
            options,
            memory_mb=task.memory_mb,
        ),
        task.timeout_s,
        cancel,
        background=background,
    )
    fault = faults.process_fault(job, task.timeout_s, "reference", {"reference.py": (task.text, task.name)})
    if fault is not None:
        raise ToolInputError(f"the reference could not run: {fault[1].message}", {"error": fault[1].model_dump()})
    try:  # the report comes from the reference's process: its code may have changed it
        report = reports.parse(reports.ReferenceReport, job.meta, "the reference's report")
        failed = faults.user_error(report.error)[1] if report.status != "ok" else None
    except faults.MALFORMED_REPORT as exc:
        error = faults.malformed_report("reference", exc)
        raise ToolInputError(f"the reference could not run: {error.message}", {"error": error.model_dump()}) from None
    if failed is not None:
        error = failed
        hint = f" ({error.hint})" if error.hint else ""
        if "memory_mb" in hint:  # which limit, at what value
            hint = f" ({error.hint}; it was {task.memory_mb} MiB)"
        raise ToolInputError(
            f"the reference failed in {error.phase}{error.where}: {error.type}: {error.message}{hint}",
            {"error": error.model_dump()},
        )
    return job, report


def _entries(job, report: reports.ReferenceReport, seeds: list[int]) -> dict[int, GoldenEntry]:
    made = {}
    for i, seed in enumerate(seeds):
        stamps = report.seeds[i] if i < len(report.seeds) else reports.ReferenceSeedReport(seed)
        made[seed] = GoldenEntry(
            init=protocol.seed_part(job.values, i, "init") or [],
            golden=protocol.seed_part(job.values, i, "golden"),
            cpu=protocol.seed_part(job.values, i, "cpu"),
            fingerprint=stamps.fingerprint,
            inputs_device=stamps.inputs_device,
        )
    return made


def _store(services: Services, key: str, seeds: list[int], job, report) -> dict[int, GoldenEntry]:
    made = _entries(job, report, seeds)
    for i, seed in enumerate(seeds):
        services.goldens.put(key, seed, made[seed])
        inputs = protocol.seed_part(job.values, i, "inputs")
        if inputs is not None:
            services.goldens.put_inputs(key, seed, inputs)
    return made


# --- filling a task's pool ahead of need ---------------------------------------------------------

_filling: set[str] = set()
_filling_lock = threading.Lock()


#: "0" turns the background fill off (then every call computes the goldens of the seeds it draws)
FILL_ENV = "KERNEL_EVAL_FILL_POOL"


def filling(key: str) -> bool:
    """Whether a background fill of this task's pool is running (calls then draw cached seeds)."""
    with _filling_lock:
        return key in _filling


def _fill_bytes(services: Services, key: str, pool: list[int], missing: int) -> int:
    """What filling `missing` seeds would store, from a cached seed of the task (0 when none is)."""
    for seed in pool:
        entry = services.goldens.get(key, seed) if services.goldens.has(key, seed) else None
        if entry is not None:
            stored = [entry.tensors(), services.goldens.inputs(key, seed)]
            return missing * sum(t.numel() * t.element_size() for t in tree_tensors(stored))
    return 0


def fill_pool_in_background(services: Services, task: ReferenceTask) -> threading.Thread | None:
    """Compute the goldens of the task's secret seeds not cached yet, a few per job, in a daemon
    thread, so that the next calls find them. Below every call: one fill in the process at a time,
    its jobs run only on a free slot nobody waits for and are killed when a call must wait (the
    next call resumes the fill), each within FILL_JOB_TIMEOUT_S and all within FILL_MAX_S."""
    if os.environ.get(FILL_ENV, "1").strip() == "0":
        return None
    key = task.key
    pool = services.seeds.secret(key)
    missing = [s for s in pool if not services.goldens.has(key, s)]
    if not missing or _fill_bytes(services, key, pool, len(missing)) > FILL_MAX_BYTES:
        return None  # large goldens: each call computes its own rather than a few GB on disk ahead of need
    with _filling_lock:
        if _filling:
            return None
        _filling.add(key)
    bounded = dataclasses.replace(task, timeout_s=min(task.timeout_s, FILL_JOB_TIMEOUT_S))

    def fill() -> None:
        deadline = time.monotonic() + FILL_MAX_S
        try:
            for start in range(0, len(missing), FILL_BATCH):
                if time.monotonic() > deadline:
                    break
                ensure(services, bounded, missing[start : start + FILL_BATCH], None, background=True)
        except Exception as exc:  # noqa: BLE001 - a failed fill only means later calls compute their goldens
            log.info("filling the seed pool of %s stopped: %s", key, exc)
        finally:
            with _filling_lock:
                _filling.discard(key)

    thread = threading.Thread(target=fill, name=f"golden-fill-{key[:8]}", daemon=True)
    thread.start()
    return thread


# --- goldens resident on the device --------------------------------------------------------------


class DeviceGoldens:
    """Goldens and CPU controls of hot tasks kept on the comparing device (LRU by bytes), so a warm
    call compares without copying them there again."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, int, str], tuple[object, object, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, seed: int, entry: GoldenEntry, device: str) -> tuple[object, object]:
        from sandbox.harness.common import to_device, tree_tensors

        slot = (key, seed, device)
        with self._lock:
            hit = self._entries.get(slot)
            if hit is not None:
                self._entries.move_to_end(slot)
                return hit[0], hit[1]
        golden, cpu = to_device(entry.golden, device), to_device(entry.cpu, device)
        size = sum(t.numel() * t.element_size() for t in tree_tensors([golden, cpu]))
        with self._lock:
            self._entries[slot] = (golden, cpu, size)
            total = sum(e[2] for e in self._entries.values())
            while total > self.max_bytes and self._entries:
                _, (_, _, dropped) = self._entries.popitem(last=False)
                total -= dropped
        return golden, cpu


DEVICE_GOLDEN_BYTES_ENV = "KERNEL_EVAL_DEVICE_GOLDEN_BYTES"
device_goldens = DeviceGoldens(bytes_from_env(DEVICE_GOLDEN_BYTES_ENV, 8 << 30))
