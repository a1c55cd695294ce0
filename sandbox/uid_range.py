"""A block of unprivileged uids for one pool's slots, held machine-wide for as long as the pool lives.

RLIMIT_NPROC counts every process of a uid, machine-wide: if two pools (two servers, the CLI
daemon and the compiler pool, two GPU workers) ran their slots under the same uids, one job's fork
loop would make the other pool's jobs fail ("can't start new thread"). So each pool claims its own
block of RANGE_SIZE uids, from RANGE_COUNT blocks above FIRST_UID, by an exclusive flock on the
block's file in a root-owned directory: the lock is held by the pool's open descriptor and is
released when the pool closes or its process dies, whatever way, so a block is never leaked.

Only root drops jobs to these uids; another user's jobs run as that user and need no block.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass

FIRST_UID = 61000
#: The group of every sandboxed job, whatever its pool: it owns the Triton cache directories (group
#: writable, nobody else), which outlive a pool and its block (a restarted server claims another).
#: A group grants nothing else: each job has its own /tmp, /dev/shm and IPC namespace.
SANDBOX_GID = 60999
RANGE_SIZE = 64
RANGE_COUNT = 512
#: Machine-wide places for the lock files, the first usable one is taken: root's own, never a
#: directory another user made (who could hold every block).
LOCK_DIRS = ("/run/kernel-eval-uids", "/var/tmp/kernel-eval-uids", "/tmp/kernel-eval-uids")


class NoUidRange(RuntimeError):
    """Every block is held by another pool; the message says how many and what to do."""


@dataclass
class UidRange:
    first: int
    size: int
    lock_fd: int | None  # None: nothing to release (not root)

    def uid(self, slot: int) -> int:
        if not 0 <= slot < self.size:
            raise ValueError(f"slot {slot} outside this pool's {self.size} uids")
        return self.first + slot

    def release(self) -> None:
        if self.lock_fd is not None:
            os.close(self.lock_fd)  # drops the flock
            self.lock_fd = None


def _lock_dir() -> str | None:
    for path in LOCK_DIRS:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        if info.st_uid == os.geteuid() and (info.st_mode & 0o022) == 0 and os.path.isdir(path):
            return path
    return None


def claim(slots: int) -> UidRange:
    """A block of uids for `slots` slots, exclusive machine-wide while held (root); or, for any
    other user, the fixed first block with nothing held (its jobs never change uid)."""
    if slots > RANGE_SIZE:
        raise ValueError(f"at most {RANGE_SIZE} sandbox slots per pool (asked for {slots})")
    if os.geteuid() != 0:
        return UidRange(FIRST_UID, RANGE_SIZE, None)
    directory = _lock_dir()
    if directory is None:
        raise NoUidRange(f"no root-owned directory for the uid locks could be made ({', '.join(LOCK_DIRS)})")
    for index in range(RANGE_COUNT):
        fd = os.open(
            os.path.join(directory, f"{index}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return UidRange(FIRST_UID + index * RANGE_SIZE, RANGE_SIZE, fd)
    raise NoUidRange(
        f"all {RANGE_COUNT} sandbox uid blocks are held by running pools on this machine; stop an idle "
        "kernel-eval server or daemon and retry"
    )
