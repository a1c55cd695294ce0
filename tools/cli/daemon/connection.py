"""Reaching this home's daemon: connect, or start one (one CLI at a time), and read its lines.

Standard library only: the CLI's fast path (tools/cli/forward.py) imports it before anything heavy.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tools.cli.daemon.location import (
    PACKAGE_ROOT,
    DaemonPaths,
    DaemonUnavailable,
    private_directory,
    same_user,
    socket_address,
)

IDLE_ENV = "KERNEL_EVAL_DAEMON_IDLE_S"
START_TIMEOUT_S = 60.0  # the daemon binds its socket before importing torch: seconds at most
LOCK_TIMEOUT_S = 90.0
MAX_REQUEST_BYTES = 8 << 20  # sources are capped at 1 MiB each
MAX_REPLY_BYTES = 256 << 20


class Connection:
    def __init__(self, sock: socket.socket, started: bool, replaced_stale: bool = False):
        self.sock = sock
        self.started = started  # this CLI started the daemon
        self.replaced_stale = replaced_stale  # ... after removing a dead daemon's socket


def connect_running(paths: DaemonPaths) -> socket.socket | None:
    """A connection to a live daemon, or None when there is none (no socket, or a stale one)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with socket_address(paths.socket) as address:
            sock.connect(address)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        return None
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.ENOENT, errno.ECONNREFUSED):
            return None
        raise DaemonUnavailable(f"cannot connect to {paths.socket}: {exc}") from None
    if not same_user(sock):
        sock.close()
        raise DaemonUnavailable(f"{paths.socket} is served by another user's process; not using it")
    return sock


@contextlib.contextmanager
def _start_lock(paths: DaemonPaths) -> Iterator[None]:
    """One CLI at a time starts a daemon (per home and code); the others wait, then find it."""
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise DaemonUnavailable(
                        f"another CLI has been starting the daemon for {LOCK_TIMEOUT_S:.0f} s"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def idle_timeout_from_env() -> float | None:
    raw = os.environ.get(IDLE_ENV)
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise DaemonUnavailable(f"${IDLE_ENV}={raw!r} is not a number of seconds") from None
    if not value > 0:
        raise DaemonUnavailable(f"${IDLE_ENV}={raw!r} must be a positive number of seconds")
    return value


def _log_tail(path: Path, limit: int = 800) -> str:
    try:
        return path.read_text(errors="replace")[-limit:].strip()
    except OSError:
        return ""


def _spawn(paths: DaemonPaths, idle_timeout_s: float | None):
    import subprocess  # only when starting one: a warm call does without it

    command = [sys.executable, "-m", "tools.cli.daemon", "--code", paths.code]
    if idle_timeout_s is not None:
        command += ["--idle-timeout", str(idle_timeout_s)]
    env = dict(os.environ, KERNEL_EVAL_HOME=str(paths.home))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH")) if p)
    with open(paths.log, "wb") as log:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=paths.directory,
            env=env,
            start_new_session=True,  # a Ctrl-C in the CLI's terminal is not the daemon's
        )


def connect(paths: DaemonPaths, autostart: bool = True, idle_timeout_s: float | None = None) -> Connection:
    """A connection to this home's daemon, starting one if there is none (and `autostart`)."""
    private_directory(paths.directory)
    sock = connect_running(paths)
    if sock is not None:
        return Connection(sock, started=False)
    if not autostart:
        raise DaemonUnavailable(f"no daemon is running (socket {paths.socket})")
    with _start_lock(paths):
        sock = connect_running(paths)  # another CLI may have started it while this one waited
        if sock is not None:
            return Connection(sock, started=False)
        stale = paths.socket.exists()
        if stale:  # nobody listens: its daemon was killed
            paths.socket.unlink()
        proc = _spawn(paths, idle_timeout_s if idle_timeout_s is not None else idle_timeout_from_env())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            sock = connect_running(paths)
            if sock is not None:
                return Connection(sock, started=True, replaced_stale=stale)
            if proc.poll() is not None:
                raise DaemonUnavailable(f"the daemon exited at start ({proc.returncode}): {_log_tail(paths.log)}")
            time.sleep(0.05)
        proc.kill()
        raise DaemonUnavailable(f"the daemon did not open {paths.socket} within {START_TIMEOUT_S:.0f} s")


class MessageTooLarge(ValueError):
    pass


class LineReader:
    """Newline-framed messages from a socket, each at most `limit` bytes; b"" at end of stream."""

    def __init__(self, sock: socket.socket, limit: int):
        self.sock, self.limit, self._buffer = sock, limit, bytearray()

    def read_line(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > self.limit:
                raise MessageTooLarge(f"a message longer than {self.limit} bytes")
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return b""
            self._buffer += chunk
