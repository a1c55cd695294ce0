"""The run store: each run's result, its task, and the tensors explain_failure needs.

Shared by every server on the same home, so:
- a run is written into a hidden directory and renamed into place when whole: a run id that
  exists is complete, and eviction never sees a run being written;
- files added later (the heatmap) are written atomically;
- eviction (at most once a second per process, one process at a time) removes runs older than
  the age limit, then the oldest until the store fits its count limit, but never a run younger
  than MIN_KEEP_S there: a burst of cheap calls cannot flush the run another client is about to
  explain. The byte limit and the disk's free space are hard: over the bytes, or with less than
  FREE_RESERVE_BYTES free on the disk, the oldest go whatever their age (on a disk full of other
  things, all but the newest KEEP_NEWEST_ON_A_FULL_DISK): a loop of failing candidates cannot
  fill the disk, which would fail every call of every client;
- a run that is gone or damaged reads as "missing", with a message saying what to do.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import threading
import time
from pathlib import Path

from sandbox import tensorio
from tools.errors import ToolInputError
from tools.models.accuracy import StoredTask
from tools.store.files import publish_dir, try_lock, write_atomic

RUN_ID = re.compile(r"r-\d{8}-\d{6}-[0-9a-f]{6}")
INCOMING = ".incoming-"

MAX_BYTES_ENV = "KERNEL_EVAL_RUNS_MAX_BYTES"
MAX_AGE_ENV = "KERNEL_EVAL_RUNS_MAX_AGE_DAYS"
DEFAULT_MAX_BYTES = 4 << 30
DEFAULT_MAX_AGE_DAYS = 7.0
MAX_RUNS = 20_000  # inodes, whatever their size
MIN_KEEP_S = 900.0  # runs this young are evicted only for bytes or disk space
FREE_RESERVE_BYTES = 1 << 30  # the disk keeps at least this free (or 5% of it, the lower), runs go first
KEEP_NEWEST_ON_A_FULL_DISK = 8
EVICT_EVERY_S = 1.0
#: a run's tensors are written after its result is returned; readers wait this long for them
PENDING_WAIT_S = 120.0
NO_TENSORS = "tensors.none"  # present: no (more) tensors will come; its text says why, if partial


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ToolInputError(f"${name}={raw!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise ToolInputError(f"${name}={raw!r} must be a positive finite number")
    return value


def _dir_bytes(path: Path) -> int:
    total = 0
    try:
        for entry in os.scandir(path):
            try:
                total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                pass
    except OSError:
        pass
    return total


class RunStore:
    def __init__(
        self,
        root: Path,
        max_bytes: int | None = None,
        max_age_s: float | None = None,
        max_runs: int = MAX_RUNS,
        min_keep_s: float = MIN_KEEP_S,
    ):
        self.root = root / "runs"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.max_bytes = int(max_bytes if max_bytes is not None else _env_number(MAX_BYTES_ENV, DEFAULT_MAX_BYTES))
        self.max_age_s = max_age_s if max_age_s is not None else _env_number(MAX_AGE_ENV, DEFAULT_MAX_AGE_DAYS) * 86400
        self.max_runs = max_runs
        self.min_keep_s = min_keep_s
        self._last_evict = 0.0
        self._evict_lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        return time.strftime("r-%Y%m%d-%H%M%S-") + secrets.token_hex(3)

    def _limits(self) -> str:
        return f"runs are kept {self.max_age_s / 86400:g} days, within {self.max_bytes >> 20} MiB"

    def path(self, run_id: str) -> Path:
        if not isinstance(run_id, str) or not RUN_ID.fullmatch(run_id):
            raise ToolInputError(
                f"{run_id!r} is not a run id (they look like r-20261129-121500-a1b2c3); run_accuracy returns one"
            )
        path = self.root / run_id
        if not path.is_dir():
            raise ToolInputError(
                f"unknown run_id {run_id!r}: no such run in the store ({self._limits()}); call run_accuracy first"
            )
        return path

    def _missing(self, run_id: str, what: str) -> ToolInputError:
        return ToolInputError(
            f"run {run_id}: its {what} is missing or damaged (removed by eviction, or a write was cut short; "
            f"{self._limits()}); call run_accuracy again"
        )

    def save(
        self, run_id: str, result: dict, task: dict, tensors: dict | None = None, tensors_pending: bool = False
    ) -> None:
        """Write a run whole. With tensors_pending, its tensors follow through save_tensors (readers
        of tensors() wait for them up to PENDING_WAIT_S)."""
        incoming = self.root / f"{INCOMING}{run_id}-{os.getpid()}"
        incoming.mkdir(mode=0o700)
        try:
            write_atomic(incoming / "task.json", json.dumps(task).encode(), durable=False)
            if tensors:
                write_atomic(incoming / "tensors.bin", lambda fd: tensorio.write_bundle(fd, tensors), durable=False)
            elif not tensors_pending:
                write_atomic(incoming / NO_TENSORS, b"", durable=False)
            write_atomic(incoming / "result.json", json.dumps(result).encode(), durable=False)
            # the run appears whole; not fsynced (it is on every call's path): after a power loss a run
            # reads complete or missing, never torn
            publish_dir(incoming, self.root / run_id, durable=False)
        except BaseException:
            shutil.rmtree(incoming, ignore_errors=True)
            raise
        self._maybe_evict()

    def save_tensors(self, run_id: str, tensors: dict, note: str | None = None) -> None:
        """The tensors of a run saved with tensors_pending (or, if there are none, why not)."""
        try:
            directory = self.path(run_id)
            if tensors:  # durable: written after the result is returned, so the fsync costs no caller anything
                write_atomic(directory / "tensors.bin", lambda fd: tensorio.write_bundle(fd, tensors), durable=True)
            if note or not tensors:
                write_atomic(directory / NO_TENSORS, (note or "").encode(), durable=False)
        except (ToolInputError, OSError):
            pass  # evicted meanwhile: nobody can ask for it

    def _json(self, run_id: str, name: str) -> dict:
        path = self.path(run_id) / name  # outside the try: its ToolInputError is a ValueError too
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise self._missing(run_id, name) from exc

    def result(self, run_id: str) -> dict:
        return self._json(run_id, "result.json")

    def task(self, run_id: str) -> dict:
        """task.json as stored; stored_task() reads it typed."""
        return self._json(run_id, "task.json")

    def stored_task(self, run_id: str) -> StoredTask:
        try:
            return StoredTask.model_validate(self.task(run_id))
        except ValueError as exc:
            if isinstance(exc, ToolInputError):
                raise
            raise ToolInputError(
                f"run {run_id} was stored by another version and cannot be re-read ({str(exc)[:200]}); "
                "call run_accuracy again"
            ) from None

    def tensors(self, run_id: str) -> dict:
        """The run's tensors ({} when it kept none); waits while they are still being written."""
        directory = self.path(run_id)
        file = directory / "tensors.bin"
        while not file.exists() and not (directory / NO_TENSORS).exists():
            try:  # still being written, unless the run is older than any writer takes
                written = (directory / "result.json").stat().st_mtime
            except OSError as exc:
                raise self._missing(run_id, "directory") from exc
            if time.time() - written > PENDING_WAIT_S:
                return {}
            time.sleep(0.02)
        if not file.exists():
            return {}
        try:
            return tensorio.read_bundle(str(file), max_bytes=1 << 40)[1]
        except (tensorio.BundleError, OSError, ValueError) as exc:
            raise self._missing(run_id, "tensors.bin") from exc

    def tensors_note(self, run_id: str) -> str:
        """Why a run's tensors are partial or absent ('' when they are whole)."""
        try:
            return (self.path(run_id) / NO_TENSORS).read_text()
        except OSError:
            return ""

    def save_file(self, run_id: str, name: str, data: bytes) -> Path:
        target = self.path(run_id) / name
        try:
            write_atomic(target, data, durable=False)
        except FileNotFoundError as exc:  # evicted meanwhile
            raise self._missing(run_id, "directory") from exc
        return target

    # --- eviction ---------------------------------------------------------------------------------
    def _maybe_evict(self) -> None:
        now = time.monotonic()
        with self._evict_lock:
            if now - self._last_evict < EVICT_EVERY_S:
                return
            self._last_evict = now
        fd = try_lock(self.root / ".evict.lock")
        if fd is None:
            return  # another process is evicting
        try:
            self.evict()
        finally:
            os.close(fd)

    def _free_bytes_short(self) -> int:
        """How many bytes the disk lacks of its reserve (FREE_RESERVE_BYTES, or 5% of a small disk)."""
        try:
            usage = shutil.disk_usage(self.root)
        except OSError:
            return 0
        return min(FREE_RESERVE_BYTES, usage.total // 20) - usage.free

    def evict(self, now: float | None = None) -> list[str]:
        """Remove what the limits say; returns the removed run ids (oldest first)."""
        now = now or time.time()
        runs, removed = [], []
        for entry in os.scandir(self.root):
            try:
                mtime = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            if entry.name.startswith(INCOMING):
                if now - mtime > 86400:  # a writer that died mid-run
                    shutil.rmtree(entry.path, ignore_errors=True)
                continue
            if RUN_ID.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
                runs.append((mtime, entry.name, _dir_bytes(Path(entry.path))))
        runs.sort()
        total, count = sum(r[2] for r in runs), len(runs)
        short = self._free_bytes_short()
        for mtime, name, size in runs:
            age = now - mtime
            # a disk full of other things: the newest runs stay (each is capped), every older one goes
            over_bytes = total > self.max_bytes or (short > 0 and count > KEEP_NEWEST_ON_A_FULL_DISK)
            if not over_bytes and (age < self.min_keep_s or (age <= self.max_age_s and count <= self.max_runs)):
                break  # sorted by age: everything after is younger still
            shutil.rmtree(self.root / name, ignore_errors=True)
            short -= size
            removed.append(name)
            total -= size
            count -= 1
        return removed
