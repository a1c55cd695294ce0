"""Golden cache: per task and seed, the inputs, the FP64 golden and the CPU control.

The second iteration of a loop on the same task pays only for the candidate. Keyed by everything
that determines the golden: reference source, input options, where the golden ran, torch version.
Entries live on disk (bounded, oldest evicted) with an in-memory LRU in front.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path

import torch

from sandbox import tensorio
from sandbox.harness.common import tree_tensors

PARTS = ("init", "inputs", "golden", "cpu")


def task_key(reference_text: str, input_options: dict, golden_device: str) -> str:
    blob = json.dumps(
        {"reference": reference_text, "options": input_options, "golden_device": golden_device, "torch": torch.__version__},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _nbytes(tree) -> int:
    return sum(t.numel() * t.element_size() for t in tree_tensors(tree))


class GoldenCache:
    def __init__(self, root: Path, disk_bytes: int = 8 << 30, memory_bytes: int = 1 << 30):
        self.root = root / "golden"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.disk_bytes = disk_bytes
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
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            tensorio.write_bundle(fd, values)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        self._evict_disk()

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
        files = sorted(self.root.glob("*/*.bin"), key=lambda p: p.stat().st_mtime)
        total = sum(p.stat().st_size for p in files)
        for path in files:
            if total <= self.disk_bytes:
                break
            total -= path.stat().st_size
            path.unlink(missing_ok=True)
