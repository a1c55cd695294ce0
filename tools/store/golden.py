"""Golden cache: per task and seed, the inputs, the FP64 golden and the CPU control.

The second iteration of a loop on the same task pays only for the candidate. Keyed by everything
that determines the golden: reference source, input options, where the golden ran, torch version.
Entries live on disk (bounded in bytes, least recently used evicted) with an in-memory LRU in
front. Several processes share the disk cache: entries are written atomically, and computing()
holds a lock per (task, seed) so concurrent callers compute a golden once; the others wait and
read it.
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
from pathlib import Path

import torch

from sandbox import tensorio
from sandbox.harness.common import tree_tensors
from tools.errors import ToolInputError
from tools.store.files import is_stale_tmp, try_lock, write_atomic

DISK_BYTES_ENV = "KERNEL_EVAL_GOLDEN_MAX_BYTES"
LOCK_POLL_S = 0.05

PARTS = ("init", "inputs", "golden", "cpu")


def task_key(reference_text: str, input_options: dict, golden_device: str) -> str:
    blob = json.dumps(
        {
            "reference": reference_text,
            "options": input_options,
            "golden_device": golden_device,
            "torch": torch.__version__,
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _nbytes(tree) -> int:
    return sum(t.numel() * t.element_size() for t in tree_tensors(tree))


class GoldenCache:
    def __init__(self, root: Path, disk_bytes: int | None = None, memory_bytes: int = 1 << 30):
        self.root = root / "golden"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.disk_bytes = disk_bytes if disk_bytes is not None else _disk_bytes_from_env()
        self.memory_bytes = memory_bytes
        self._memory: OrderedDict[tuple[str, int], tuple[dict, int]] = OrderedDict()
        self._lock = threading.Lock()

    def _path(self, key: str, seed: int) -> Path:
        return self.root / key / f"{seed}.bin"

    def get(self, key: str, seed: int) -> dict | None:
        with self._lock:
            hit = self._memory.get((key, seed))
            if hit is not None:
                self._memory.move_to_end((key, seed))
                return hit[0]
        path = self._path(key, seed)
        if not path.exists():
            return None
        try:
            _, values = tensorio.read_bundle(str(path), max_bytes=1 << 40)
            os.utime(path)
        except (tensorio.BundleError, OSError):
            path.unlink(missing_ok=True)
            return None
        self._remember(key, seed, values)
        return values

    def put(self, key: str, seed: int, values: dict) -> None:
        self._remember(key, seed, values)
        path = self._path(key, seed)
        path.parent.mkdir(exist_ok=True, mode=0o700)
        write_atomic(path, lambda fd: tensorio.write_bundle(fd, values))
        self._evict_disk()

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
            for fd in fds:
                os.close(fd)

    def _remember(self, key: str, seed: int, values: dict) -> None:
        size = _nbytes(values)
        with self._lock:
            self._memory[(key, seed)] = (values, size)
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
    raw = os.environ.get(DISK_BYTES_ENV)
    if not raw:
        return 8 << 30
    try:
        value = int(float(raw))
    except (ValueError, OverflowError):
        value = 0
    if value <= 0:
        raise ToolInputError(f"${DISK_BYTES_ENV}={raw!r} must be a positive number of bytes")
    return value
