"""`kernel-eval serve --status | --stop`: ask this home's daemon how it is, or to stop.

Commands themselves reach the daemon through the CLI's fast path (tools/cli/forward.py).
"""

from __future__ import annotations

import socket
import time

from pydantic import BaseModel

from tools.cli.daemon.connection import MAX_REPLY_BYTES, LineReader, connect_running
from tools.cli.daemon.location import DaemonPaths, DaemonUnavailable, private_directory
from tools.cli.daemon.protocol import (
    DAEMON_MESSAGE,
    DaemonStatus,
    Failed,
    StatusMessage,
    StopMessage,
    Stopping,
    send,
)

STOP_TIMEOUT_S = 40.0


def _ask(request: BaseModel, sock: socket.socket) -> BaseModel:
    """One request, one reply."""
    with sock:
        send(sock, request)
        line = LineReader(sock, MAX_REPLY_BYTES).read_line()
    if not line:
        raise DaemonUnavailable("the daemon closed the connection without answering")
    message = DAEMON_MESSAGE.validate_json(line)
    if isinstance(message, Failed):
        raise DaemonUnavailable(f"the daemon refused: {message.message}")
    return message


def status(paths: DaemonPaths) -> DaemonStatus:
    private_directory(paths.directory)
    sock = connect_running(paths)
    if sock is None:
        return DaemonStatus(
            running=False, code=paths.code, home=str(paths.home), socket=str(paths.socket), log=str(paths.log)
        )
    reply = _ask(StatusMessage(code=paths.code, home=str(paths.home)), sock)
    assert isinstance(reply, DaemonStatus)
    return reply


def stop(paths: DaemonPaths) -> int | None:
    """Stop the daemon and wait until its socket is gone; its pid, or None if none was running."""
    private_directory(paths.directory)
    sock = connect_running(paths)
    if sock is None:
        return None
    reply = _ask(StopMessage(code=paths.code, home=str(paths.home)), sock)
    assert isinstance(reply, Stopping)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline and paths.socket.exists():
        time.sleep(0.05)
    return reply.pid


def stop_all(paths: DaemonPaths) -> list[tuple[str, int | None, str | None]]:
    """Stop every daemon of this home: one runs per code version and environment (a CLI called with
    another PATH, or from another checkout, has its own). (key, pid or None, why not) per socket."""
    private_directory(paths.directory)
    outcomes = []
    for found in sorted(paths.directory.glob("*.sock")):
        try:
            outcomes.append((found.stem, stop(DaemonPaths(paths.home, found.stem)), None))
        except DaemonUnavailable as exc:
            outcomes.append((found.stem, None, str(exc)))
    return outcomes
