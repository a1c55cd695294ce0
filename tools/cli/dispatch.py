"""Run a tool for the CLI: through this home's warm daemon (started on first use), else in-process.

Both paths return the same result model, so the CLI prints the same thing either way.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TypeVar

from pydantic import BaseModel

from tools.daemon.catalogue import TOOLS
from tools.daemon.protocol import ToolName
from tools.errors import ToolInputError

NO_DAEMON_ENV = "KERNEL_EVAL_NO_DAEMON"
R = TypeVar("R", bound=BaseModel)


class DaemonInternalError(RuntimeError):
    """A call crashed inside the daemon (which keeps running); the message names the incident."""


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


def _why_not_daemon(ns: argparse.Namespace) -> str | None:
    if getattr(ns, "no_daemon", False):
        return "--no-daemon"
    if os.environ.get(NO_DAEMON_ENV, "").strip() not in ("", "0"):
        return f"{NO_DAEMON_ENV}={os.environ[NO_DAEMON_ENV]}"
    return None


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def call_tool(tool: ToolName, request: BaseModel, result_model: type[R], ns: argparse.Namespace) -> R:
    """`result_model` is the tool's (the catalogue's), named here so that callers get its type."""
    entry = TOOLS[tool]
    assert entry.result_model is result_model, f"{tool} returns {entry.result_model.__name__}"
    verbose = getattr(ns, "verbose", False)
    say = (lambda text: _stderr(f"kernel-eval: {text}")) if verbose else (lambda text: None)
    progress = (lambda f, m: _stderr(f"kernel-eval: [{float(f):4.0%}] {m}")) if verbose else None
    reason = _why_not_daemon(ns)
    if reason is None:
        from tools.daemon import client
        from tools.daemon.location import DaemonUnavailable, daemon_paths

        def connected(connection: client.Connection) -> None:
            how = "started" if connection.started else "reused"
            stale = " (replaced a stale socket: its daemon was gone)" if connection.replaced_stale else ""
            say(f"via the daemon ({how}{stale}; socket {paths.socket})")

        try:
            paths = daemon_paths()
            result_json = client.call(
                paths,
                tool,
                request.model_dump(mode="json", exclude_unset=True),
                on_connected=connected,
                on_progress=progress or (lambda f, m: None),
                on_log=_stderr,
            )
            return result_model.model_validate_json(result_json)
        except DaemonUnavailable as exc:
            reason = f"no daemon: {exc}"
        except client.DaemonCallFailed as exc:
            if exc.kind == "internal":
                raise DaemonInternalError(str(exc)) from None
            raise ToolInputError(str(exc)) from None
    say(f"in-process ({reason})")
    result = entry.load()(request, progress, None)
    assert isinstance(result, result_model)
    return result
