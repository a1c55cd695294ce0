"""Where a daemon lives and who may talk to it.

One daemon per (KERNEL_EVAL_HOME, code version): its socket, lock and log are
<home>/daemon/<key>.{sock,lock,log}, in a directory only this user can enter (0700). The key hashes
the code (every .py file of the package: path, size, mtime), the Python interpreter, the protocol
and the environment the tools and the sandbox read, so a CLI never reaches a daemon of other code,
another home or another configuration. Every connection is checked with SO_PEERCRED both ways.
Standard library only: the CLI's fast path (tools/cli/forward.py) imports it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
from collections import namedtuple
from collections.abc import Iterator
from pathlib import Path

from tools.code_version import (  # noqa: F401 - re-exported: the daemon's key is the code version
    DAEMON_SWITCHES,
    NOT_FINGERPRINTED,
    PACKAGE_ROOT,
    PROTOCOL,
    code_version,
    environment_fingerprint,
)

#: sun_path holds 108 bytes; longer socket paths are reached through /proc/self/fd/<dir fd>/.
MAX_SOCKET_PATH = 100


class DaemonUnavailable(RuntimeError):
    """No daemon can be used; the message is the reason (the CLI runs in-process and says why)."""


class DaemonPaths(namedtuple("DaemonPaths", ["home", "code"])):  # not a dataclass: that import costs ~10 ms
    """home: Path, the resolved KERNEL_EVAL_HOME; code: the code version."""

    __slots__ = ()

    @property
    def directory(self) -> Path:
        return self.home / "daemon"

    @property
    def socket(self) -> Path:
        return self.directory / f"{self.code}.sock"

    @property
    def lock(self) -> Path:
        return self.directory / f"{self.code}.lock"

    @property
    def log(self) -> Path:
        return self.directory / f"{self.code}.log"


def daemon_paths(home: Path | None = None, code: str | None = None) -> DaemonPaths:
    from tools.store import home as state_home

    return DaemonPaths((home or state_home()).resolve(), code or code_version())


def private_directory(path: Path) -> Path:
    """`path`, made if missing, owned by this user and closed to everyone else; else DaemonUnavailable."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except OSError as exc:
        raise DaemonUnavailable(f"cannot make the daemon directory {path}: {exc}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise DaemonUnavailable(f"{path} is not a directory owned by this user; remove it to use the daemon")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket, as the kernel saw it connect."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return pid, uid, gid


def same_user(sock: socket.socket, uid: int | None = None) -> bool:
    """Is the peer this user (or `uid`)? Checked by the daemon on every connection and by the CLI."""
    return peer_credentials(sock)[1] == (os.geteuid() if uid is None else uid)


@contextlib.contextmanager
def socket_address(path: Path) -> Iterator[str]:
    """An address for bind/connect that fits sun_path, however deep the home is."""
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_PATH | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)
