"""Files that several server processes share safely: atomic writes and advisory locks.

Every server of a user shares one $KERNEL_EVAL_HOME by default, so the store is written as if
another process were reading and writing beside it:
- a file is written to a unique temporary name in its directory, then renamed over the target
  (os.replace is atomic on POSIX): readers see the old file or the new one, never a torn one;
  `durable` also fsyncs the data before the rename and the directory after it, so a power loss
  leaves the old file or the new one, never an empty or partial one under the target's name;
- a directory of several files (a run) is built under a temporary name and renamed into place
  whole with `publish_dir`;
- read-modify-write sequences (the seed pools) and compute-once steps (a golden) hold an flock
  on a lock file beside the data; the kernel drops it when its holder dies, so a crash never
  leaves a stale lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path

TMP_MARK = ".tmp-"
#: temporary files older than this are a dead writer's and may be removed
STALE_TMP_S = 3600.0


def tmp_name(path: Path) -> Path:
    return path.with_name(f"{path.name}{TMP_MARK}{os.getpid()}-{secrets.token_hex(4)}")


def write_atomic(path: Path, write: Callable[[int], object] | bytes, durable: bool = True) -> None:
    """Write `path` all at once: `write(fd)` (or the bytes) into a unique temporary, then rename.
    `durable`: the data and the rename are on disk when this returns (fsync of file and directory)."""
    tmp = tmp_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        if callable(write):
            write(fd)
        else:
            view = memoryview(write)
            while view:
                view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def publish_dir(incoming: Path, target: Path, durable: bool = True) -> None:
    """Rename the fully written directory `incoming` to `target` (absent or empty): readers see all
    of it or nothing. `durable`: its files, itself and the rename are on disk when this returns."""
    if durable:
        for entry in incoming.iterdir():
            if entry.is_file():
                fd = os.open(entry, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        fsync_dir(incoming)
    os.replace(incoming, target)
    if durable:
        fsync_dir(target.parent)


def fsync_dir(directory: Path) -> None:
    """Make the renames and creations in `directory` durable (POSIX: fsync the directory itself)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(lock_path: Path, shared: bool = False) -> Iterator[None]:
    """Hold an flock on `lock_path` (created if needed) for the block; exclusive unless `shared`."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def try_lock(lock_path: Path) -> int | None:
    """An exclusive flock taken without waiting: its fd (close it to release), or None if held."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def is_stale_tmp(path: Path, now: float | None = None) -> bool:
    if TMP_MARK not in path.name:
        return False
    try:
        return (now or time.time()) - path.stat().st_mtime > STALE_TMP_S
    except OSError:
        return False
