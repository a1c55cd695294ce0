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
import sys
from collections import namedtuple
from collections.abc import Iterator, Mapping
from pathlib import Path

try:  # the built-in SHA-256: hashlib would load OpenSSL first, ~5 ms of every CLI start
    from _sha256 import sha256  # pyright: ignore[reportMissingImports]  (Python <= 3.11)
except ImportError:  # pragma: no cover - Python 3.12+ (or a build without it)
    try:
        from _sha2 import sha256  # pyright: ignore[reportMissingImports]
    except ImportError:
        from hashlib import sha256

#: Bumped when a message changes shape; part of the code version, so old daemons are never asked.
PROTOCOL = 2
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
CODE_DIRS = ("tools", "sandbox", "mcp_server")
#: Variables that change what a tool does (or what the sandbox passes on); the daemon's own
#: switches are left out so that `KERNEL_EVAL_NO_DAEMON=0` still finds the same daemon.
ENV_PREFIXES = ("KERNEL_EVAL_", "CUDA_", "ASCEND_", "TRITON_", "NCCL_", "TORCH_", "NVSHMEM_", "OMP_", "MKL_")
ENV_NAMES = ("PATH", "LD_LIBRARY_PATH", "XDG_CACHE_HOME", "HOME")  # PYTHONPATH: the daemon gets the package root first
DAEMON_SWITCHES = ("KERNEL_EVAL_NO_DAEMON", "KERNEL_EVAL_DAEMON_IDLE_S")
#: The home is the daemon's place (its socket lives there), not part of its code version: the CLI
#: starts the daemon with the resolved KERNEL_EVAL_HOME set, which the caller's environment may not
#: have (the default home) or may spell otherwise (a trailing slash, a symlink).
NOT_FINGERPRINTED = (*DAEMON_SWITCHES, "KERNEL_EVAL_HOME")
#: sun_path holds 108 bytes; longer socket paths are reached through /proc/self/fd/<dir fd>/.
MAX_SOCKET_PATH = 100


class DaemonUnavailable(RuntimeError):
    """No daemon can be used; the message is the reason (the CLI runs in-process and says why)."""


def environment_fingerprint(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    values: Mapping[str, str] = os.environ if environ is None else environ
    return sorted(
        (k, v)
        for k, v in values.items()
        if k not in NOT_FINGERPRINTED and (k in ENV_NAMES or k.startswith(ENV_PREFIXES))
    )


def _python_files(root: str, directory: str) -> Iterator[tuple[str, int, int]]:
    """(path relative to root, size, mtime_ns) of every .py file under root/directory; os.scandir, as
    every CLI call computes this: ~10x faster than Path.rglob."""
    pending = [directory]
    while pending:
        relative = pending.pop()
        with os.scandir(os.path.join(root, relative)) as entries:
            for entry in entries:
                name = os.path.join(relative, entry.name)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(name)
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    yield name, info.st_size, info.st_mtime_ns


def code_version(environ: Mapping[str, str] | None = None) -> str:
    digest = sha256(f"protocol {PROTOCOL}\n{sys.executable}\n{sys.version}\n".encode())
    for name in CODE_DIRS:
        for relative, size, mtime_ns in sorted(_python_files(str(PACKAGE_ROOT), name)):
            digest.update(f"{relative} {size} {mtime_ns}\n".encode())
    for key, value in environment_fingerprint(environ):
        digest.update(f"{key}={value}\n".encode())
    return digest.hexdigest()[:16]


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
