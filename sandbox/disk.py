"""Bounded disk use of directories jobs write into (their Triton caches): measured without following
links, and with a bound on the walk itself, since a job chooses how many files there are."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

MAX_ENTRIES = 100_000  # a walk stops here: a tree of more files counts as over any cap


def tree_bytes(path: Path, stop_above: int) -> int:
    """Bytes under `path` (links not followed), counted until they pass `stop_above` or the walk
    passes MAX_ENTRIES entries (then stop_above + 1). The walk goes through directory descriptors
    (os.fwalk), so a tree deeper than PATH_MAX is counted too; any error but a vanished entry makes the
    tree count as over (a job must not hide what it wrote behind an error of the walk)."""
    total, seen, failed = 0, 0, []
    if not os.path.isdir(path):
        return 0
    for _, dirs, files, fd in os.fwalk(str(path), onerror=failed.append, follow_symlinks=False):
        for name in dirs + files:
            seen += 1
            if seen > MAX_ENTRIES:
                return stop_above + 1
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError:
                return stop_above + 1
            total += info.st_blocks * 512 if hasattr(info, "st_blocks") else info.st_size
            if total > stop_above:
                return total
        if any(not isinstance(e, FileNotFoundError) for e in failed):
            return stop_above + 1
    return total


def remove_tree(path: Path) -> None:
    """`path` and everything under it, however deep (shutil.rmtree recurses in Python 3.11: a tree
    deeper than the recursion limit raised RecursionError)."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        pass
    except (OSError, RecursionError):
        subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], check=False, timeout=600)


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
            remove_tree(child)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
