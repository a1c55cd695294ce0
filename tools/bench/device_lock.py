"""One timed job per device at a time, with the device to itself.

Ordinary jobs on a device backend (accuracy, compile) share the device; a timing job waits until
they are done and keeps new ones out while it runs. Within a process the lock prefers the waiting
timing job (so a stream of accuracy calls cannot starve it); across processes sharing one
$KERNEL_EVAL_HOME (servers, CLI runs, batch workers) an flock on a file per device does the same
without the preference. The device is the backend plus CUDA_VISIBLE_DEVICES / ASCEND_RT_VISIBLE_DEVICES
as the job sees them (its JobRequest.env, else the server's): jobs and servers given disjoint devices
never wait for each other.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from sandbox import backends
from tools.errors import ToolInputError

POLL_S = 0.05
_locks: dict[Path, DeviceLock] = {}
_locks_guard = threading.Lock()


def device_key(backend_name: str, job_env: dict[str, str] | None = None) -> str:
    """The backend and the devices a job sees: its own environment's (a batch engine pinning jobs to
    GPUs), else the server's."""
    name = backends.by_name(backend_name).visible_devices_env
    visible = ((job_env or {}).get(name) or os.environ.get(name)) if name else None
    return f"{backend_name}-{re.sub(r'[^0-9A-Za-z,_-]', '_', visible) if visible else 'all'}"


def for_device(home: Path, backend_name: str, job_env: dict[str, str] | None = None) -> DeviceLock:
    path = home / "locks" / f"device-{device_key(backend_name, job_env)}.lock"
    with _locks_guard:
        lock = _locks.get(path)
        if lock is None:
            lock = _locks[path] = DeviceLock(path)
        return lock


class DeviceLock:
    def __init__(self, path: Path):
        self.path = path
        self._cv = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    def _wait(self, ready, cancel: threading.Event | None) -> None:
        while not ready():
            if cancel is not None and cancel.is_set():
                raise ToolInputError("cancelled by the caller")
            self._cv.wait(POLL_S)

    @contextlib.contextmanager
    def _flock(self, mode: int, cancel: threading.Event | None) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if cancel is not None and cancel.is_set():
                        raise ToolInputError("cancelled by the caller") from None
                    time.sleep(POLL_S)
            yield
        finally:
            os.close(fd)  # releases the flock

    @contextlib.contextmanager
    def shared(self, cancel: threading.Event | None = None) -> Iterator[None]:
        with self._cv:
            self._wait(lambda: not self._writer and not self._writers_waiting, cancel)
            self._readers += 1
        try:
            with self._flock(fcntl.LOCK_SH, cancel):
                yield
        finally:
            with self._cv:
                self._readers -= 1
                self._cv.notify_all()

    @contextlib.contextmanager
    def exclusive(self, cancel: threading.Event | None = None) -> Iterator[None]:
        with self._cv:
            self._writers_waiting += 1
            try:
                self._wait(lambda: not self._writer and not self._readers, cancel)
            finally:
                self._writers_waiting -= 1
            self._writer = True
        try:
            with self._flock(fcntl.LOCK_EX, cancel):
                yield
        finally:
            with self._cv:
                self._writer = False
                self._cv.notify_all()
