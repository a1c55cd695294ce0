"""Bounded disk use of directories jobs write into (their Triton caches): measured without following
links, and with a bound on the walk itself, since a job chooses how many files there are."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

MAX_ENTRIES = 100_000  # a walk stops here: a tree of more files counts as over any cap


def tree_bytes(path: Path, stop_above: int) -> int:
    """Bytes under `path` (links not followed), counted until they pass `stop_above` or the walk
    passes MAX_ENTRIES entries (then stop_above + 1)."""
    total, seen, pending = 0, 0, [str(path)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                return stop_above + 1
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += info.st_blocks * 512 if hasattr(info, "st_blocks") else info.st_size
            if total > stop_above:
                return total
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return total


def evict_oldest(root: Path, cap: int) -> None:
    """Remove root's subdirectories, least recently used (mtime) first, until the rest fit in `cap`."""
    try:
        children = sorted((p for p in root.iterdir() if p.is_dir() and not p.is_symlink()), key=_mtime, reverse=True)
    except OSError:
        return
    used = 0
    for child in children:  # newest first: the oldest are what no longer fits
        used += tree_bytes(child, cap)
        if used > cap:
            shutil.rmtree(child, ignore_errors=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
