"""The long-lived state behind the tools, made once per $KERNEL_EVAL_HOME."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from sandbox import backends
from sandbox.pool import JobRequest, JobResult, Pool, PoolError
from tools import ceilings
from tools.bench import device_lock
from tools.errors import ServerFault, ToolInputError
from tools.models.task import BackendInfo, ReportedBackend
from tools.store import home
from tools.store.golden import GoldenCache
from tools.store.runs import RunStore
from tools.store.seeds import SeedPool

log = logging.getLogger("kernel_eval.sandbox")
TIMING_JOB = "timing"  # sandbox/harness/timing.py: the one job kind that needs the device to itself


@dataclass
class Services:
    home: Path
    goldens: GoldenCache
    seeds: SeedPool
    runs: RunStore

    def pool(self, backend: backends.Backend) -> _Sandbox:
        on_device = not backend.interpreter and backend.device != "cpu"
        return _Sandbox(Pool.get(backend.name, state_dir=self.home), self.home if on_device else None)

    def backend_info(self, backend: backends.Backend, golden_device: str | None = None) -> BackendInfo:
        """Which backend ran, with the versions its zygote reported."""
        info = self.pool(backend).ready_info
        return BackendInfo(
            name=_public_name(backend.name),
            device=backend.device,
            interpreter=backend.interpreter,
            golden_device=golden_device,
            torch=info.get("torch"),
            triton=info.get("triton"),
        )


class _Sandbox:
    """A pool whose failures (after its own retry) are the server's: ServerFault, with the reason."""

    def __init__(self, pool: Pool, lock_home: Path | None = None):
        self._pool = pool
        self._lock_home = lock_home  # device backends: timing jobs have the device to themselves

    @property
    def ready_info(self) -> dict:
        return self._pool.ready_info

    @property
    def slots(self) -> int:
        return self._pool.slots

    @property
    def jobs_run(self) -> int:
        return self._pool.jobs_run

    def start(self) -> None:
        self._pool.start()

    def run(self, request: JobRequest, timeout_s: float, cancel: threading.Event | None = None, **kwargs) -> JobResult:
        # the requests are clamped when made (and say so); this holds for every job whatever made it
        memory_mb, timeout_s, _ = ceilings.clamp(request.memory_mb, timeout_s)
        request = dataclasses.replace(request, memory_mb=memory_mb)
        if self._lock_home is None:
            held = contextlib.nullcontext()
        else:
            lock = device_lock.for_device(self._lock_home, self._pool.backend.name, request.env)
            held = lock.exclusive(cancel) if request.kind == TIMING_JOB else lock.shared(cancel)
        try:
            with held:
                return self._pool.run(request, timeout_s, cancel, **kwargs)
        except PoolError as exc:
            if cancel is not None and cancel.is_set():
                raise ToolInputError("cancelled by the caller") from None
            incident = secrets.token_hex(4)  # the details (a zygote's log) name server paths: they stay in its log
            log.error("sandbox failure (incident %s): %s", incident, exc)
            raise ServerFault(
                f"the sandbox failed (a fault of this server, not of the kernel; retry later; "
                f"incident {incident} in the server's log)"
            ) from None


_lock = threading.Lock()
_current: Services | None = None


def services() -> Services:
    global _current
    root = home()
    with _lock:
        if _current is None or _current.home != root:
            _current = Services(root, GoldenCache(root), SeedPool(root), RunStore(root))
        return _current


def resolve_backend(name: str) -> backends.Backend:
    try:
        return backends.resolve(name)
    except backends.BackendUnavailable as exc:
        raise ToolInputError(str(exc)) from None


def progress_reporter(callback) -> Callable[[float, str], None]:
    """progress(fraction, message) that never raises into the tool."""

    def report(fraction: float, message: str) -> None:
        if callback is not None:
            try:
                callback(fraction, message)
            except Exception:  # noqa: BLE001 - a broken progress sink must not fail the run
                pass

    return report


def _public_name(name: str) -> ReportedBackend:
    for public in get_args(ReportedBackend):
        if public == name:
            return public
    raise ValueError(f"backend {name!r} is internal: no result reports it")
