"""The tools' errors, under the one root sandbox.protocol.KernelEvalError: ToolInputError is the caller's to
fix (the CLI exits 2, MCP returns isError with the message), ServerFault the server's (exit 3)."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

from sandbox.protocol import KernelEvalError


class ToolInputError(KernelEvalError, ValueError):
    """The request cannot be run as given. The message says what was wrong and what to do."""

    blame = "caller"

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.details = details or {}


class ServerFault(KernelEvalError):
    """The server's own machinery failed (the sandbox, not the request and not the kernel), after a
    retry. Reported as the server's error, never as a verdict on the candidate."""

    blame = "server"


def describe_validation_error(exc: ValidationError, label: Callable[[str], str] = str) -> str:
    """pydantic's errors as short lines naming the field (`label` turns it into a CLI flag), no URLs."""
    lines = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        if loc:
            loc[0] = label(loc[0])
        where = ".".join(loc) or "input"
        message = "required" if err["type"] == "missing" else err["msg"]
        if err["type"] == "extra_forbidden":
            message = "unknown field"
        lines.append(f"{where}: {message}")
    return "; ".join(lines)
