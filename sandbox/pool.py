"""The server's side of the sandbox: a warm zygote per backend, bounded slots, one job at a time each.

    pool = Pool.get("cpu")
    result = pool.run(JobRequest(kind="candidate", files={...}, ...), timeout_s=120, cancel=event)

Jobs wait for a free slot in a bounded queue (PoolBusy past it, with how many are waiting). A
timeout or a cancellation kills the job's whole pid namespace. If the zygote dies (or cannot be
written to), the job is retried once on a fresh zygote; a second death raises PoolError: an
infrastructure fault is the server's, never the job's result.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from sandbox import backends, disk, isolation, result_channel, tensorio, uid_range
from sandbox.isolation import linux
from sandbox.protocol import KernelEvalError
from sandbox.state import default_state_dir

DEFAULT_OUTPUT_CAP = 1 << 20  # per stream: its first and last 512 KiB are kept, never a kill
JOB_TMPFS_MB = isolation.SHM_MB + isolation.JOB_FILES_MB  # a job's /dev/shm and /job tmpfs
CGROUP_MARGIN_MB = 64  # page tables, kernel buffers and page cache a job's cgroup is charged beside its places
TRITON_CACHE_INSIDE = "/triton-cache"
TRITON_CACHE_CAP_MB = 256  # one source's compiled kernels: a few MiB; over this, a job filled it on purpose
TRITON_CACHES_CAP_MB = 2048  # every source's together
TRITON_CACHES_TRIM_EVERY_S = 60.0
#: While a job runs, its Triton cache is measured this often; past TRITON_CACHE_CAP_MB the job is killed
#: ("disk_limit"): a job writes at most this long's worth beyond the cap, not its whole timeout's.
CACHE_WATCH_EVERY_S = 0.5
ZYGOTE_START_TIMEOUT = 180.0
GPU_SLOTS_MAX = 16  # per GPU, by default (each job holds a CUDA context: ~0.5 GiB of the GPU's memory)
CORES_PER_GPU_SLOT = 4
#: Environment passed to the zygote: nothing of the server's own (tokens, keys, paths).
PASSTHROUGH_ENV = ("LD_LIBRARY_PATH", *backends.passthrough_env())


class PoolBusy(KernelEvalError, RuntimeError):
    """Too many jobs are queued; the message says how many and what to do."""


class PoolError(KernelEvalError, RuntimeError):
    """The sandbox itself failed (zygote could not start or died)."""

    def client_text(self) -> str:
        return f"the sandbox failed (a server fault, not your kernel's): {self}"


class Deferred(PoolBusy):
    """A background job found the pool busy with (or owed to) clients' calls: it does not wait."""


class _Either:
    """Set when either event is: the caller's cancel, or the pool's preemption of a background job."""

    def __init__(self, first: threading.Event | None, second: threading.Event):
        self.first, self.second = first, second

    def is_set(self) -> bool:
        return self.second.is_set() or (self.first is not None and self.first.is_set())


@dataclass
class JobRequest:
    kind: str  # reference | candidate | compile
    files: dict[str, str]  # name in /job -> source text
    display_names: dict[str, str]
    seeds: list[int]
    options: dict
    inputs: dict | None = None  # named trees of tensors for the job (candidate, compile)
    memory_mb: int = 4096
    tmp_mb: int = 256
    result_limit_bytes: int = 8 << 30
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class JobResult:
    job_id: str
    returncode: int | None
    signal: str | None
    #: timeout | cancelled | shutdown | zygote_died | out_of_memory (its cgroup's) | disk_limit (its Triton
    #: cache) | None
    reason: str | None
    wall_s: float
    max_rss_kb: int
    cpu_s: float
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    meta: dict | None
    values: dict
    bundle_error: str | None
    queued_s: float = 0.0
    result_via: str | None = None  # "memory" (a shared memory file) or "file" (result.bin); None: no result
    #: a job killed for its time: the Python stack it dumped a moment before (protocol.STACK_SIGNAL), kept
    #: out of stderr (it names the server's own files; tools.faults quotes the job's frames from it)
    stack: str = ""
    memory_limit_bytes: int | None = None  # its cgroup's bound over all its processes; None: it had no cgroup
    memory_peak_bytes: int | None = None  # the most its cgroup held


#: Operator setting: sandboxed jobs one pool runs at once (a pool serves one backend in one process;
#: with several GPUs the batch engine runs a worker process, so a pool, per GPU).
SLOTS_ENV = "KERNEL_EVAL_SLOTS"
MAX_SLOTS = 64


def configure_slots(slots: int | None) -> None:
    """An operator's --slots, or else $KERNEL_EVAL_SLOTS: checked now (a clear error at start-up, not at the
    first call), in force as KERNEL_EVAL_SLOTS."""
    if slots is None:
        default_slots()  # raises for a bad KERNEL_EVAL_SLOTS
        return
    if not 1 <= slots <= MAX_SLOTS:
        raise PoolError(f"--slots {slots}: give a whole number of sandbox slots from 1 to {MAX_SLOTS}")
    os.environ[SLOTS_ENV] = str(slots)


def default_slots(backend: backends.Backend | None = None, gpus: int = 1) -> int:
    """KERNEL_EVAL_SLOTS when the operator set it; else on cpu up to 4 (the interpreter is CPU-bound,
    one core a job); on a GPU one slot per CORES_PER_GPU_SLOT of the host's cores per GPU: a job is a
    compile, a CPU control and its own torch threads beside the GPU work (measured on a 16-core H100
    host, BENCHMARKS.md: 15 slots gave ~20% more candidates a minute than 4 and 2.6x their latency)."""
    configured = os.environ.get(SLOTS_ENV, "").strip()
    if configured:
        if not configured.isdigit() or not 1 <= int(configured) <= MAX_SLOTS:
            raise PoolError(f"{SLOTS_ENV}={configured!r}: give a whole number of sandbox slots from 1 to {MAX_SLOTS}")
        return int(configured)
    cores = os.cpu_count() or 1
    if backend is not None and backend.gpu:
        return max(2, min(GPU_SLOTS_MAX, cores // max(1, gpus) // CORES_PER_GPU_SLOT))
    return max(1, min(4, cores))


def spares_for(backend: backends.Backend, slots: int) -> int:
    """Warm children the zygote keeps ready (0: its default): on a device half the slots, at least
    three (KERNEL_EVAL_SPARES overrides, for measuring)."""
    configured = os.environ.get("KERNEL_EVAL_SPARES", "").strip()
    if configured.isdigit():
        return int(configured)
    return max(3, slots // 2) if backend.gpu else 0


class _Pending:
    def __init__(self):
        self.done = threading.Event()
        self.pid: int | None = None
        self.exited: dict | None = None
        self.proc: subprocess.Popen | None = None  # the zygote it was sent to
        self.result_channel = False  # the zygote handed the job the shared result file


class Pool:
    _pools: dict[str, Pool] = {}
    _pools_lock = threading.Lock()

    @classmethod
    def get(cls, backend_name: str, **kwargs) -> Pool:
        with cls._pools_lock:
            pool = cls._pools.get(backend_name)
            if pool is None:
                pool = cls._pools[backend_name] = Pool(backends.by_name(backend_name), **kwargs)
            return pool

    @classmethod
    def close_all(cls) -> None:
        with cls._pools_lock:
            for pool in cls._pools.values():
                pool.close()
            cls._pools.clear()

    def __init__(self, backend, slots: int | None = None, state_dir: Path | None = None, queue_limit: int = 64):
        self.backend = backend
        self.slots = slots or default_slots(backend)
        self.state_dir = Path(state_dir or default_state_dir()) / f"sandbox-{backend.name}"
        self.queue_limit = queue_limit
        self._free = list(range(self.slots))
        self._slot_cv = threading.Condition()
        self._waiting = 0
        self._background: set[threading.Event] = set()  # preemption events of the background jobs running
        self._lock = threading.Lock()  # zygote start / stdin writes
        self._proc: subprocess.Popen | None = None
        self._pending: dict[str, _Pending] = {}
        self._gone: set = set()  # zygotes whose event stream ended
        self.ready_info: dict = {}
        self.starts = 0
        self.jobs_run = 0  # jobs handed a slot (retries of a job whose zygote died not counted again)
        self._uids: uid_range.UidRange | None = None  # this pool's own block, claimed at the first start
        self._caches_trimmed_at = float("-inf")

    # --- zygote ----------------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.state_dir),
            "OPENBLAS_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }
        env.update({k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ})
        # where this package lives (installed or not): the zygote is started with -P, from its state dir
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        env.update(self.backend.env)
        return env

    def start(self) -> None:
        """Start the zygote now (it imports torch and Triton; on a device its spares make their
        contexts) instead of at the first job. Raises PoolError as a job would."""
        self._ensure_started()

    def _ensure_started(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None and self._proc not in self._gone:
                return
            if self._proc is not None:  # dead, or dying: its events ended (it may not be reapable yet)
                self._proc.kill()
                self._proc.wait(10)
            if self._uids is None:
                try:
                    self._uids = uid_range.claim(self.slots)
                except (uid_range.NoUidRange, ValueError) as exc:
                    raise PoolError(f"the sandbox for backend {self.backend.name!r} cannot start: {exc}") from exc
            self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            (self.state_dir / "jobs").mkdir(exist_ok=True, mode=0o700)
            log = open(self.state_dir / "zygote.log", "ab")
            self._proc = subprocess.Popen(
                [
                    sys.executable,
                    "-P",
                    "-m",
                    "sandbox.zygote",
                    "--backend",
                    self.backend.name,
                    "--state-dir",
                    str(self.state_dir),
                    "--spares",
                    str(spares_for(self.backend, self.slots)),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=self._env(),
                cwd=str(self.state_dir),
                start_new_session=True,
            )
            log.close()
            self.starts += 1
            ready = threading.Event()
            threading.Thread(target=self._read_events, args=(self._proc, ready), daemon=True).start()
            if not ready.wait(ZYGOTE_START_TIMEOUT) or self._proc.poll() is not None:
                tail = self._log_tail()
                self._proc.kill()
                raise PoolError(f"the sandbox for backend {self.backend.name!r} did not start: {tail}")

    def _log_tail(self, limit: int = 2000) -> str:
        try:
            return (self.state_dir / "zygote.log").read_text(errors="replace")[-limit:].strip() or "(no output)"
        except OSError:
            return "(no log)"

    def _read_events(self, proc: subprocess.Popen, ready: threading.Event) -> None:
        assert proc.stdout is not None  # started with stdout=PIPE
        for raw in proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "ready":
                self.ready_info = event
                ready.set()
                continue
            pending = self._pending.get(event.get("job"))
            if pending is None:
                continue
            if kind == "started":
                pending.pid = event.get("pid")
                pending.result_channel = event.get("result_channel") is True
            elif kind == "exited":
                pending.exited = event
                pending.done.set()
        # EOF: the zygote is gone; fail whatever it was running
        self._gone.add(proc)
        ready.set()
        tail = self._log_tail()
        for pending in list(self._pending.values()):
            if pending.proc is proc and not pending.done.is_set():
                pending.exited = {
                    "returncode": None,
                    "signal": None,
                    "reason": "zygote_died",
                    "stderr": f"the sandbox zygote died: {tail}",
                }
                pending.done.set()

    def _send(self, command: dict) -> None:
        with self._lock:
            if self._proc is None or self._proc.stdin is None:
                raise PoolError("sandbox not running")
            self._proc.stdin.write((json.dumps(command) + "\n").encode())
            self._proc.stdin.flush()

    # --- slots -----------------------------------------------------------------------------------
    def _acquire_background(self, preempt: threading.Event) -> int:
        """A free slot nobody waits for, else Deferred: background work never queues before a call."""
        with self._slot_cv:
            if self._waiting or not self._free:
                raise Deferred(f"the {self.slots} sandbox slots are busy with calls: background work deferred")
            self._background.add(preempt)
            return self._free.pop(0)

    def _acquire(self, cancel: threading.Event | None) -> int:
        with self._slot_cv:
            if not self._free:
                for preempt in self._background:  # a call waits: the background jobs give their slots back
                    preempt.set()
            if not self._free and self._waiting >= self.queue_limit:
                raise PoolBusy(
                    f"{self._waiting} jobs already wait for {self.slots} sandbox slots; retry later "
                    f"or lower the number of concurrent calls"
                )
            self._waiting += 1
            try:
                while not self._free:
                    if cancel is not None and cancel.is_set():
                        raise PoolError("cancelled while queued")
                    self._slot_cv.wait(0.1)
                return self._free.pop(0)
            finally:
                self._waiting -= 1

    def _release(self, slot: int) -> None:
        with self._slot_cv:
            self._free.append(slot)
            self._slot_cv.notify()

    @property
    def queued(self) -> int:
        return self._waiting

    # --- jobs ------------------------------------------------------------------------------------
    def run(
        self,
        request: JobRequest,
        timeout_s: float,
        cancel: threading.Event | None = None,
        on_start=None,
        background: bool = False,
    ) -> JobResult:
        """background: work no client waits for (filling a task's goldens ahead of need): it takes a slot
        only when one is free and no call waits (else Deferred), and is killed (reason "cancelled")
        as soon as a call has to wait for a slot."""
        queued_at = time.monotonic()
        preempt = None
        if background:
            preempt = threading.Event()
            slot = self._acquire_background(preempt)
            cancel = _Either(cancel, preempt)  # type: ignore[assignment] - polled with is_set() only
        else:
            slot = self._acquire(cancel)
        self.jobs_run += 1
        try:
            for attempt in (1, 2):
                self._ensure_started()
                result = self._run_in_slot(request, slot, timeout_s, cancel, on_start, time.monotonic() - queued_at)
                if result.reason != "zygote_died" or (cancel is not None and cancel.is_set()):
                    return result
                if attempt == 2:
                    raise PoolError(
                        f"the sandbox for backend {self.backend.name!r} died twice while running the job: "
                        f"{result.stderr[-600:]}"
                    )
            raise AssertionError("unreachable")
        finally:
            if preempt is not None:
                with self._slot_cv:
                    self._background.discard(preempt)
            self._release(slot)

    def _run_in_slot(self, request, slot, timeout_s, cancel, on_start, queued_s) -> JobResult:
        job_id = uuid.uuid4().hex[:16]
        host_dir = self.state_dir / "jobs" / job_id
        channel = None
        try:
            try:
                host_dir.mkdir(mode=0o700)
                channel = result_channel.ResultChannel(job_id) if result_channel.available() else None
                self._write_job(host_dir, request, timeout_s)
            except OSError as exc:  # a full disk or a broken home: the server's fault, said as such
                raise PoolError(
                    f"the sandbox cannot write the job's files under {self.state_dir} ({exc.strerror or exc}); "
                    "free space there (or set KERNEL_EVAL_HOME to another disk) and retry"
                ) from exc
            pending = self._pending[job_id] = _Pending()
            pending.proc = self._proc
            command = {
                "op": "run",
                "job": job_id,
                "dir": str(host_dir),
                "slot": slot,
                "timeout_s": timeout_s,
                "output_cap": DEFAULT_OUTPUT_CAP,
            }
            if channel is not None:
                command["result_fd"] = channel.path_for_zygote
            command |= self._cgroup_limits(request)
            try:
                self._send(command)
            except (OSError, PoolError) as exc:  # the zygote went away between start and send
                pending.exited = {"reason": "zygote_died", "stderr": f"the sandbox zygote is gone: {exc}"}
                pending.done.set()
            if on_start is not None:
                on_start()
            killed = False
            watch = _CacheWatch(self._triton_cache_path(request))
            while not pending.done.wait(0.05):
                reason = "cancelled" if cancel is not None and cancel.is_set() else watch.over()
                if reason is not None and not killed:
                    try:
                        self._send({"op": "kill", "job": job_id, "reason": reason})
                    except (OSError, PoolError):
                        pass  # the zygote is gone: so is the job
                    killed = True
            shared = channel if pending.result_channel else None
            result = self._collect(job_id, host_dir, pending.exited or {}, request.result_limit_bytes, queued_s, shared)
            if result.memory_peak_bytes is not None:
                result.memory_limit_bytes = command.get("memory_limit_bytes")
            return result
        finally:
            self._pending.pop(job_id, None)
            if channel is not None:
                channel.close()
            shutil.rmtree(host_dir, ignore_errors=True)
            cache = self._triton_cache_path(request)
            if cache is not None and cache.exists():
                self._trim_triton_cache(cache)

    def _write_job(self, host_dir: Path, request: JobRequest, timeout_s: float) -> None:
        cache = self._triton_cache(request)
        spec = {
            "kind": request.kind,
            "backend": self.backend.name,
            "files": request.files,
            "display_names": request.display_names,
            "seeds": request.seeds,
            "options": request.options,
            "env": request.env,
            "limits": {
                "tmp_mb": request.tmp_mb,
                "uid_base": self._uids.first if self._uids else uid_range.FIRST_UID,
                "gid": uid_range.SANDBOX_GID,
                "rlimits": self._rlimits(request),
                "data_budget": request.memory_mb << 20 if self.backend.data_limit else 0,
                "writable": {str(cache): TRITON_CACHE_INSIDE} if cache else {},
                "writable_cap_mb": TRITON_CACHE_CAP_MB,
                "timeout_s": timeout_s,  # the interpreter's pace check stops a launch that cannot end in time
            },
        }
        (host_dir / "job.json").write_text(json.dumps(spec))
        if request.inputs:
            fd = os.open(host_dir / "inputs.bin", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                tensorio.write_bundle(fd, request.inputs)
            finally:
                os.close(fd)

    def _triton_cache_path(self, request: JobRequest) -> Path | None:
        """A Triton cache per source text: the second job of the same candidate skips compiling
        (and building Triton's launcher). Shared only by jobs of identical code, so a hostile
        candidate can only spoil its own cache. The interpreter compiles nothing."""
        if self.backend.interpreter:
            return None
        digest = hashlib.sha256("\0".join(sorted(request.files.values())).encode()).hexdigest()[:24]
        return self.state_dir / "triton-cache" / digest

    def _triton_cache(self, request: JobRequest) -> Path | None:
        """_triton_cache_path, made: writable by sandboxed jobs (their group) and nobody else."""
        path = self._triton_cache_path(request)
        if path is None:
            return None
        if path.exists():
            os.utime(path)  # in use: the last to be evicted
            return path
        path.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            os.chown(path, 0, uid_range.SANDBOX_GID)
            os.chmod(path, 0o2770)  # setgid: what the jobs make inside stays the sandbox's group
        else:  # the jobs run as this user
            os.chmod(path, 0o700)
        return path

    def _trim_triton_cache(self, path: Path) -> None:
        """After a job: its source's cache emptied when over TRITON_CACHE_CAP_MB, and every source's
        together cut to TRITON_CACHES_CAP_MB, least recently used first. A job can fill its cache
        while it runs; what stays on disk after it is bounded."""
        if disk.tree_bytes(path, TRITON_CACHE_CAP_MB << 20) > TRITON_CACHE_CAP_MB << 20:
            disk.remove_tree(path)
        now = time.monotonic()
        if now - self._caches_trimmed_at >= TRITON_CACHES_TRIM_EVERY_S:  # a walk of every source's cache
            self._caches_trimmed_at = now
            disk.evict_oldest(path.parent, TRITON_CACHES_CAP_MB << 20)

    def _rlimits(self, request: JobRequest) -> dict[str, int]:
        cores = os.cpu_count() or 1
        limits = {
            "file_size": max(request.result_limit_bytes, 64 << 20),
            "open_files": 1024,
            "processes": 4 * cores + 64,  # threads count too
            "core_dump": 0,
        }
        # What the zygote already maps + the job's budget. Without a zygote the job cannot be sent:
        # run() retries it on a new one, with limits written again.
        proc = self._proc
        if self.backend.address_space_limit and proc is not None:
            limits["address_space"] = _zygote_vmsize(proc.pid) + (request.memory_mb << 20)
        return limits

    def _cgroup_limits(self, request: JobRequest) -> dict[str, int]:
        """The job's cgroup (sandbox/cgroup.py), where the zygote can make one: every place the job's
        pages can be is bounded on its own, and the cgroup bounds their sum over all its processes:
        the zygote's pages a child may copy on write, memory_mb, /tmp, /dev/shm and /job, the result it
        writes (never more than it held), and a margin for the kernel's own use."""
        proc = self._proc
        held = _zygote_rss(proc.pid) if proc is not None else 2 << 30
        result = min(request.result_limit_bytes, request.memory_mb << 20)
        places_mb = request.memory_mb + request.tmp_mb + JOB_TMPFS_MB + CGROUP_MARGIN_MB
        pids = self._rlimits(request)["processes"]
        return {"memory_limit_bytes": held + result + (places_mb << 20), "pids_max": pids}

    def _collect(self, job_id, host_dir, exited, limit, queued_s, channel=None) -> JobResult:
        meta, values, bundle_error, via = None, {}, None, None
        if exited.get("returncode") == 0 and exited.get("reason") is None:
            via = "memory" if channel is not None else "file"
            try:
                if channel is not None:
                    meta, values = channel.read(limit)
                else:
                    meta, values = tensorio.read_bundle(str(host_dir / "result.bin"), limit)
            except (tensorio.BundleError, OSError) as exc:
                bundle_error = str(exc)
        stderr, stack = exited.get("stderr", ""), ""
        if exited.get("reason") == "timeout":
            stderr, stack = _split_stack(stderr)
        return JobResult(
            job_id=job_id,
            returncode=exited.get("returncode"),
            signal=exited.get("signal"),
            reason=exited.get("reason"),
            wall_s=float(exited.get("wall_s", 0.0)),
            max_rss_kb=int(exited.get("max_rss_kb", 0)),
            cpu_s=float(exited.get("cpu_s", 0.0)),
            stdout=exited.get("stdout", ""),
            stderr=stderr,
            stdout_bytes=int(exited.get("stdout_bytes", 0)),
            stderr_bytes=int(exited.get("stderr_bytes", 0)),
            meta=meta,
            values=values,
            bundle_error=bundle_error,
            queued_s=queued_s,
            result_via=via,
            stack=stack,
            memory_peak_bytes=exited.get("memory_peak_bytes"),
        )

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(10)
            except Exception:  # noqa: BLE001
                proc.kill()
        if self._uids is not None:  # after the zygote: none of its jobs runs under these uids any more
            self._uids.release()
            self._uids = None


STACK_HEADER = re.compile(  # a thread of faulthandler's dump
    r"^(?:Current thread|Thread) 0x[0-9a-f]+", re.MULTILINE
)


def _split_stack(stderr: str) -> tuple[str, str]:
    """(what the job printed, the stack faulthandler dumped when its time was up)."""
    found = STACK_HEADER.search(stderr)
    return (stderr, "") if found is None else (stderr[: found.start()], stderr[found.start() :])


class _CacheWatch:
    """A running job's Triton cache, measured every CACHE_WATCH_EVERY_S: "disk_limit" once past its cap."""

    def __init__(self, path: Path | None):
        self.path = path
        self.next_at = time.monotonic() + CACHE_WATCH_EVERY_S

    def over(self) -> str | None:
        if self.path is None or time.monotonic() < self.next_at:
            return None
        self.next_at = time.monotonic() + CACHE_WATCH_EVERY_S
        cap = TRITON_CACHE_CAP_MB << 20
        return "disk_limit" if disk.tree_bytes(self.path, cap) > cap else None


def _zygote_rss(pid: int) -> int:
    try:
        return linux.status_bytes("VmRSS", pid)
    except OSError:
        return 2 << 30


def _zygote_vmsize(pid: int) -> int:
    try:
        return linux.status_bytes("VmSize", pid)
    except OSError:
        return 2 << 30
