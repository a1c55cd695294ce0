"""Task sources: text or a .py path, read and syntax-checked in the trusted process.

compile() parses without running anything, so a syntax error is reported here, with line and
column, before any sandbox starts.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.errors import ToolInputError
from tools.models.task import ErrorInfo

MAX_SOURCE_BYTES = 1 << 20


def _looks_like_a_path(text: str) -> bool:
    """One word with a directory separator or a file suffix: no source anyone means to pass."""
    return not any(c.isspace() for c in text) and ("/" in text or re.search(r"\.[A-Za-z]\w*$", text) is not None)


def _not_found(role: str, text: str) -> ToolInputError:
    where = "" if Path(text).expanduser().is_absolute() else f" (relative paths resolve against {Path.cwd()})"
    return ToolInputError(f"{role}: no such file {text!r}{where}; pass the Python source itself or the path of a .py file")


def resolve(value: str, role: str) -> tuple[str, str]:
    """(source text, the name errors should show). `role` is 'reference' or 'candidate'.

    A one-line value that names a file or looks like a path is read as one; only a .py file is
    accepted, so a directory or a .txt never gets compiled as source text.
    """
    stripped = value.strip()
    if "\n" not in stripped and (stripped.endswith(".py") or _looks_like_a_path(stripped)):
        path = Path(stripped).expanduser()
        if path.is_dir():
            raise ToolInputError(f"{role}: {stripped} is a directory, not a .py file; pass the path of the .py file "
                                 f"(e.g. {stripped.rstrip('/')}/{role}.py) or the Python source itself")
        if not path.exists():
            raise _not_found(role, stripped)
        if path.suffix != ".py":
            raise ToolInputError(f"{role}: {stripped} is not a .py file; pass a .py file or the Python source itself")
        if not path.is_file():
            raise ToolInputError(f"{role}: {stripped} is not a regular file")
        if path.stat().st_size > MAX_SOURCE_BYTES:
            raise ToolInputError(f"{role}: {stripped} is larger than {MAX_SOURCE_BYTES} bytes")
        try:
            return path.read_text(), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ToolInputError(f"{role}: cannot read {stripped}: {exc}") from None
    if len(value.encode()) > MAX_SOURCE_BYTES:
        raise ToolInputError(f"{role}: source larger than {MAX_SOURCE_BYTES} bytes")
    return value, f"{role}.py"


def syntax_error(text: str, display: str) -> ErrorInfo | None:
    try:
        compile(text, display, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return ErrorInfo(
            phase="syntax",
            type=type(exc).__name__,
            message=exc.msg,
            file=display,
            line=exc.lineno,
            column=exc.offset,
            source_line=(exc.text or "").rstrip("\n") or None,
            hint="fix the syntax error at the line shown",
        )
    except ValueError as exc:  # e.g. null bytes
        return ErrorInfo(phase="syntax", type="ValueError", message=str(exc), file=display)
    return None
