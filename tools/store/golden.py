"""Golden cache: per task and seed, the FP64 golden, the CPU control and the inputs' fingerprint.

The second iteration of a loop on the same task pays only for the candidate. Keyed by everything
that determines the golden: reference source, input options, where the golden ran, torch version.
Entries live on disk (bounded in bytes, least recently used evicted) with an in-memory LRU in
front. The inputs themselves are not part of an entry (jobs make them from the seed): when a run
needs them as tensors (a stored failing run, a task whose get_inputs is not reproducible) they are
kept beside the entry, `{seed}.inputs.bin`, and read only then. Several processes share the disk
cache: entries are written atomically, and computing() holds a lock per (task, seed) so concurrent
callers compute a golden once; the others wait and read it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from sandbox import tensorio
from sandbox.harness.common import tree_tensors
from tools.errors import ToolInputError
from tools.store.files import is_stale_tmp, try_lock, write_atomic

DISK_BYTES_ENV = "KERNEL_EVAL_GOLDEN_MAX_BYTES"
MEMORY_BYTES_ENV = "KERNEL_EVAL_GOLDEN_MEMORY_BYTES"
LOCK_POLL_S = 0.05
#: bumped when what an entry means changes (v2: inputs made in the jobs, on the device)
FORMAT = 2


@dataclass
class GoldenEntry:
    """One seed of a task: what the reference job computed."""

    init: list
    golden: Any
    cpu: Any  # None: the op has no CPU kernel in this dtype
    fingerprint: str
    inputs_device: str  # where jobs make the inputs (cuda, cpu), or "given": sent as files

    def tensors(self) -> dict:
        return {"init": self.init, "golden": self.golden, "cpu": self.cpu}


def task_key(reference_text: str, input_options: dict, golden_device: str) -> str:
    blob = json.dumps(
        {
            "reference": reference_text,
            "options": input_options,
            "golden_device": golden_device,
            "torch": torch.__version__,
            "format": FORMAT,
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _nbytes(tree) -> int:
    return sum(tensorio.stored_nbytes(t) for t in tree_tensors(tree))


class GoldenCache:
    def __init__(self, root: Path, disk_bytes: int | None = None, memory_bytes: int | None = None):
        self.root = root / "golden"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.disk_bytes = disk_bytes if disk_bytes is not None else _disk_bytes_from_env()
        self.memory_bytes = memory_bytes if memory_bytes is not None else bytes_from_env(MEMORY_BYTES_ENV, 4 << 30)
        self._memory: OrderedDict[tuple[str, int], tuple[GoldenEntry, int]] = OrderedDict()
        self._lock = threading.Lock()
        # one writer, in order; its thread is joined at exit, so a CLI process still writes them
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="golden-writer")
        self._unwritten: dict[Path, dict] = {}  # path -> values, until the writer has them on disk

    def _path(self, key: str, seed: int, suffix: str = ".bin") -> Path:
        return self.root / key / f"{seed}{suffix}"

    def get(self, key: str, seed: int) -> GoldenEntry | None:
        with self._lock:
            hit = self._memory.get((key, seed))
            if hit is not None:
                self._memory.move_to_end((key, seed))
                return hit[0]
        path = self._path(key, seed)
        if not path.exists():
            return None
        try:
            meta, values = tensorio.read_bundle(str(path), max_bytes=1 << 40)
            entry = GoldenEntry(
                values.get("init") or [],
                values.get("golden"),
                values.get("cpu"),
                str(meta["fingerprint"]),
                str(meta["inputs_device"]),
            )
            os.utime(path)
        except (tensorio.BundleError, OSError, KeyError, TypeError):
            path.unlink(missing_ok=True)
            return None
        self._remember(key, seed, entry)
        return entry

    def has(self, key: str, seed: int) -> bool:
        """Cached in memory or on disk (without reading it)."""
        with self._lock:
            if (key, seed) in self._memory or self._path(key, seed) in self._unwritten:
                return True
        return self._path(key, seed).exists()

    def put(self, key: str, seed: int, entry: GoldenEntry) -> None:
        """In memory at once; on disk (durably: a torn golden must never read as a valid one) by a
        writer thread, so the call that computed it does not wait for hundreds of MB to be synced."""
        self._remember(key, seed, entry)
        meta = {"fingerprint": entry.fingerprint, "inputs_device": entry.inputs_device}
        self._write_later(self._path(key, seed), entry.tensors(), meta)

    def _write_later(self, path: Path, values: dict, meta: dict | None = None) -> None:
        with self._lock:
            self._unwritten[path] = values

        def write() -> None:
            try:
                path.parent.mkdir(exist_ok=True, mode=0o700)
                write_atomic(path, lambda fd: tensorio.write_bundle(fd, values, meta))
                self._evict_disk()
            except OSError:
                pass  # a cache: the entry stays in memory, and the next process computes it again
            finally:
                with self._lock:
                    self._unwritten.pop(path, None)

        self._writer.submit(write)

    def flush(self) -> None:
        """Wait until every entry put so far is on disk."""
        self._writer.submit(lambda: None).result()

    def inputs(self, key: str, seed: int) -> list | None:
        """The seed's inputs as tensors, if a job returned them once (see the module doc)."""
        path = self._path(key, seed, ".inputs.bin")
        with self._lock:
            if path in self._unwritten:
                return self._unwritten[path]["inputs"]
        try:
            return tensorio.read_bundle(str(path), max_bytes=1 << 40)[1]["inputs"]
        except FileNotFoundError:
            return None
        except (tensorio.BundleError, OSError, KeyError):
            path.unlink(missing_ok=True)
            return None

    def put_inputs(self, key: str, seed: int, inputs: list) -> None:
        self._write_later(self._path(key, seed, ".inputs.bin"), {"inputs": inputs})

    @contextlib.contextmanager
    def computing(self, key: str, seeds: list[int], cancel: threading.Event | None = None) -> Iterator[None]:
        """Hold the compute locks of (key, seed) for every seed, taken in seed order (no deadlock
        between callers of overlapping seed sets). Check get() again inside: another process may
        have written it while this one waited."""
        directory = self.root / key
        directory.mkdir(exist_ok=True, mode=0o700)
        fds: list[int] = []
        try:
            for seed in sorted(set(seeds)):
                while (fd := try_lock(directory / f"{seed}.lock")) is None:
                    if cancel is not None and cancel.is_set():
                        raise ToolInputError("cancelled by the caller")
                    time.sleep(LOCK_POLL_S)
                fds.append(fd)
            yield
        finally:
            # released once the writer has put on disk what this block computed (it works in order):
            # another process that waited for the lock then reads the golden instead of recomputing it
            self._writer.submit(lambda: [os.close(fd) for fd in fds])

    def _remember(self, key: str, seed: int, entry: GoldenEntry) -> None:
        size = _nbytes(entry.tensors())
        with self._lock:
            self._memory[(key, seed)] = (entry, size)
            self._memory.move_to_end((key, seed))
            total = sum(s for _, s in self._memory.values())
            while total > self.memory_bytes and len(self._memory) > 1:
                _, (_, dropped) = self._memory.popitem(last=False)
                total -= dropped

    def _evict_disk(self) -> None:
        fd = try_lock(self.root / ".evict.lock")
        if fd is None:
            return  # another process is evicting
        try:
            entries = []
            for path in self.root.glob("*/*"):
                if is_stale_tmp(path):
                    path.unlink(missing_ok=True)
                elif path.suffix == ".bin":
                    with contextlib.suppress(OSError):
                        st = path.stat()
                        entries.append((st.st_mtime, st.st_size, path))
            entries.sort()
            total = sum(size for _, size, _ in entries)
            for _, size, path in entries:
                if total <= self.disk_bytes:
                    break
                total -= size
                path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def _disk_bytes_from_env() -> int:
    return bytes_from_env(DISK_BYTES_ENV, 8 << 30)


def bytes_from_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = int(float(raw))
    except (ValueError, OverflowError):
        value = 0
    if value <= 0:
        raise ToolInputError(f"${name}={raw!r} must be a positive number of bytes")
    return value
