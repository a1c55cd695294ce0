"""Run a tool for a CLI command: in this process, or inside the daemon for a CLI on its socket.

Either way the same function runs and returns the same result model, so the command prints the
same thing. The daemon marks the commands it runs with `serving()`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

from pydantic import BaseModel

from tools.catalogue import TOOLS, ToolName
from tools.cli.forward import NO_DAEMON_ENV, why_not_daemon

R = TypeVar("R", bound=BaseModel)


class TextOut(Protocol):
    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


@dataclass(frozen=True)
class Remote:
    """A command the daemon runs for a CLI at the other end of its socket."""

    how: str  # for --verbose: "reused", "started", ...
    socket: str
    stderr: TextOut  # that CLI's stderr (progress may be reported from any thread)
    cancel: threading.Event  # set when that CLI goes away
    load: Callable[[str], Callable[..., BaseModel]]  # the daemon's tool functions, by name


_here = threading.local()


@contextlib.contextmanager
def serving(remote: Remote) -> Iterator[None]:
    """Within this block (in this thread), tools run for `remote`."""
    _here.remote = remote
    try:
        yield
    finally:
        _here.remote = None


def add_dispatch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-daemon",
        action="store_true",
        help=f"run in this process instead of through the warm daemon (also: {NO_DAEMON_ENV}=1)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="on stderr: whether the daemon or this process ran the call (and why), and progress",
    )


def call_tool(tool: ToolName, request: BaseModel, result_model: type[R], ns: argparse.Namespace) -> R:
    """`result_model` is the tool's (the catalogue's), named here so that callers get its type."""
    entry = TOOLS[tool]
    assert entry.result_model is result_model, f"{tool} returns {entry.result_model.__name__}"
    remote: Remote | None = getattr(_here, "remote", None)
    stderr = remote.stderr if remote is not None else sys.stderr
    verbose = getattr(ns, "verbose", False)

    def say(text: str) -> None:
        if verbose:
            print(f"kernel-eval: {text}", file=stderr, flush=True)

    progress = (lambda f, m: say(f"[{float(f):4.0%}] {m}")) if verbose else None
    if remote is not None:
        say(f"via the daemon ({remote.how}; socket {remote.socket})")
        result = remote.load(tool)(request, progress, remote.cancel)
    else:
        reason = why_not_daemon(getattr(ns, "no_daemon", False)) or getattr(ns, "local_reason", None)
        say(f"in-process ({reason})" if reason else "in-process")
        result = entry.load()(request, progress, None)
    assert isinstance(result, result_model)
    return result
