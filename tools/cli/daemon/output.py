"""Where a command the daemon runs prints: to its CLI, in order, as Output messages.

The daemon runs commands concurrently, one worker thread each, so sys.stdout and sys.stderr are
replaced (while it serves) by streams that route a worker thread's writes to its CLI and every
other thread's to the daemon's log. Warnings a tool logs in that thread reach the CLI's stderr too,
as `message` lines (what Python prints for an unhandled warning in-process).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Literal

StreamName = Literal["stdout", "stderr"]

_thread = threading.local()  # .streams: {"stdout": CliStream, "stderr": CliStream} of this worker's CLI


class CliStream:
    """A text stream whose writes become `send(stream, text)` (Output messages to one CLI)."""

    def __init__(self, name: StreamName, send: Callable[[StreamName, str], None]):
        self.name: StreamName = name
        self._send = send

    def write(self, text: str) -> int:
        if text:
            self._send(self.name, text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class _Routed:
    """The daemon's sys.stdout / sys.stderr while it serves."""

    def __init__(self, name: StreamName, original):
        self.name: StreamName = name
        self.original = original

    def _target(self):
        streams = getattr(_thread, "streams", None)
        return streams[self.name] if streams else self.original

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        return self._target().isatty()

    def __getattr__(self, attribute: str):
        return getattr(self.original, attribute)


DAEMON_LOGGER = "kernel_eval.daemon"  # the daemon's own records are for its log only


class _ForwardWarnings(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        streams = getattr(_thread, "streams", None)
        if streams is not None and not record.name.startswith(DAEMON_LOGGER):
            streams["stderr"].write(record.getMessage() + "\n")


_installing = threading.Lock()


def install() -> None:
    """Route sys.stdout, sys.stderr and logged warnings; again if someone put other streams there since."""
    with _installing:
        if not isinstance(sys.stdout, _Routed):
            sys.stdout = _Routed("stdout", sys.stdout)
        if not isinstance(sys.stderr, _Routed):
            sys.stderr = _Routed("stderr", sys.stderr)
        root = logging.getLogger()
        if not any(isinstance(h, _ForwardWarnings) for h in root.handlers):
            root.addHandler(_ForwardWarnings(logging.WARNING))


def uninstall() -> None:
    """Put back what install() replaced (a daemon run inside another program, e.g. a test)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, _Routed):
            setattr(sys, name, stream.original)
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _ForwardWarnings)]:
        root.removeHandler(handler)


@contextlib.contextmanager
def to_cli(send: Callable[[StreamName, str], None]) -> Iterator[tuple[CliStream, CliStream]]:
    """Within this block, this thread prints to a CLI; yields its (stdout, stderr)."""
    install()  # cheap when in place; a host program (a test runner) may have swapped the streams
    streams = {"stdout": CliStream("stdout", send), "stderr": CliStream("stderr", send)}
    _thread.streams = streams
    try:
        yield streams["stdout"], streams["stderr"]
    finally:
        _thread.streams = None
