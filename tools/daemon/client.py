"""The CLI's side: find (or start) this home's daemon of this code, and call a tool through it.

Kept light (no torch): a CLI served by the daemon only imports pydantic models.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from tools.daemon.location import (
    PACKAGE_ROOT,
    DaemonPaths,
    DaemonUnavailable,
    private_directory,
    same_user,
    socket_address,
)
from tools.daemon.protocol import (
    DAEMON_MESSAGE,
    MAX_REPLY_BYTES,
    Accepted,
    CallMessage,
    DaemonStatus,
    Failed,
    Finished,
    LineReader,
    LogLine,
    Progress,
    StatusMessage,
    StopMessage,
    Stopping,
    ToolName,
    send,
)

IDLE_ENV = "KERNEL_EVAL_DAEMON_IDLE_S"
START_TIMEOUT_S = 60.0  # the daemon binds its socket before importing torch: seconds at most
LOCK_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 40.0


class DaemonCallFailed(RuntimeError):
    """The daemon ran the call and it failed; `kind` as in protocol.Failed."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class _NotAccepted(Exception):
    """The connection ended before the daemon took the call (it was exiting): safe to retry."""


@dataclass
class Connection:
    sock: socket.socket
    started: bool  # this CLI started the daemon
    replaced_stale: bool = False


def _connect(paths: DaemonPaths) -> socket.socket | None:
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


def _spawn(paths: DaemonPaths, idle_timeout_s: float | None) -> subprocess.Popen:
    command = [sys.executable, "-m", "tools.daemon", "--code", paths.code]
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
    sock = _connect(paths)
    if sock is not None:
        return Connection(sock, started=False)
    if not autostart:
        raise DaemonUnavailable(f"no daemon is running (socket {paths.socket})")
    with _start_lock(paths):
        sock = _connect(paths)  # another CLI may have started it while this one waited
        if sock is not None:
            return Connection(sock, started=False)
        stale = paths.socket.exists()
        if stale:  # nobody listens: its daemon was killed
            paths.socket.unlink()
        proc = _spawn(paths, idle_timeout_s if idle_timeout_s is not None else idle_timeout_from_env())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            sock = _connect(paths)
            if sock is not None:
                return Connection(sock, started=True, replaced_stale=stale)
            if proc.poll() is not None:
                raise DaemonUnavailable(f"the daemon exited at start ({proc.returncode}): {_log_tail(paths.log)}")
            time.sleep(0.05)
        proc.kill()
        raise DaemonUnavailable(f"the daemon did not open {paths.socket} within {START_TIMEOUT_S:.0f} s")


def _messages(sock: socket.socket) -> Iterator[BaseModel]:
    reader = LineReader(sock, MAX_REPLY_BYTES)
    while line := reader.read_line():
        yield DAEMON_MESSAGE.validate_json(line)


def _ask(paths: DaemonPaths, request: BaseModel, sock: socket.socket) -> BaseModel:
    """One request, one reply (status, stop)."""
    with sock:
        send(sock, request)
        for message in _messages(sock):
            if isinstance(message, Failed):
                raise DaemonUnavailable(f"the daemon refused: {message.message}")
            return message
    raise DaemonUnavailable("the daemon closed the connection without answering")


def status(paths: DaemonPaths) -> DaemonStatus:
    private_directory(paths.directory)
    sock = _connect(paths)
    if sock is None:
        return DaemonStatus(
            running=False, code=paths.code, home=str(paths.home), socket=str(paths.socket), log=str(paths.log)
        )
    reply = _ask(paths, StatusMessage(code=paths.code, home=str(paths.home)), sock)
    assert isinstance(reply, DaemonStatus)
    return reply


def stop(paths: DaemonPaths) -> int | None:
    """Stop the daemon and wait until its socket is gone; its pid, or None if none was running."""
    private_directory(paths.directory)
    sock = _connect(paths)
    if sock is None:
        return None
    reply = _ask(paths, StopMessage(code=paths.code, home=str(paths.home)), sock)
    assert isinstance(reply, Stopping)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline and paths.socket.exists():
        time.sleep(0.05)
    return reply.pid


def call(
    paths: DaemonPaths,
    tool: ToolName,
    arguments: dict,
    on_connected: Callable[[Connection], None] = lambda c: None,
    on_progress: Callable[[float, str], None] = lambda f, m: None,
    on_log: Callable[[str], None] = lambda line: None,
    autostart: bool = True,
) -> str:
    """The tool's result JSON. DaemonUnavailable: no daemon took the call (run it in-process);
    DaemonCallFailed: it ran and failed. A KeyboardInterrupt closes the connection: the daemon cancels."""
    message = CallMessage(code=paths.code, home=str(paths.home), tool=tool, arguments=arguments, cwd=os.getcwd())
    for attempt in range(2):
        connection = connect(paths, autostart)
        try:
            return _call_once(connection, message, on_connected, on_progress, on_log)
        except _NotAccepted:
            if attempt:
                raise DaemonUnavailable("the daemon closed the connection before taking the call") from None
            time.sleep(0.2)  # it was exiting (idle): the next connect finds or starts a fresh one
    raise AssertionError("unreachable")


def _call_once(connection, message, on_connected, on_progress, on_log) -> str:
    with connection.sock as sock:
        try:
            send(sock, message)
        except OSError:
            raise _NotAccepted() from None
        accepted = False
        try:
            for reply in _messages(sock):
                if isinstance(reply, Accepted):
                    accepted = True
                    on_connected(connection)
                elif isinstance(reply, Progress):
                    on_progress(reply.fraction, reply.message)
                elif isinstance(reply, LogLine):
                    on_log(reply.line)
                elif isinstance(reply, Finished):
                    return reply.result_json
                elif isinstance(reply, Failed):
                    if reply.kind == "refused":
                        raise DaemonUnavailable(f"the daemon refused: {reply.message}")
                    raise DaemonCallFailed(reply.kind, reply.message)
        except (ConnectionResetError, BrokenPipeError):
            pass
        if not accepted:
            raise _NotAccepted()
        raise DaemonCallFailed("internal", "the daemon closed the connection mid-call (did it crash? see its log)")
