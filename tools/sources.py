"""Task sources: text or a .py path, read and syntax-checked in the trusted process.

compile() parses without running anything, so a syntax error is reported here, with line and
column, before any sandbox starts.

Paths are confined when the caller says so (the MCP server always does): a path is read only
when both its spelling and its real location (symlinks resolved) lie under an allowed root, not
in the server's home (whose caches sandboxed jobs write), and the real file is a .py file. The
file is then read once, through one descriptor opened component by component from its root with
O_NOFOLLOW, and checked by fstat of that descriptor: a name swapped
for a symlink between the check and the read is refused, never followed. Outside the roots, the
error is the same whether the file exists or not, and nothing of it is read. Without confinement
(the CLI, library calls) any path the user names is read: the user is the one whose files they are.
A relative path resolves against the caller's working directory: the process's, or the one a CLI
sent to the daemon (`working_directory`).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path

from sandbox.state import default_state_dir
from tools.errors import ToolInputError
from tools.models.task import ErrorInfo

MAX_SOURCE_BYTES = 1 << 20

#: The directories .py paths may be read from; None: not confined.
_roots: ContextVar[tuple[Path, ...] | None] = ContextVar("kernel_eval_source_roots", default=None)
#: Sources already read elsewhere (a batch's driver): value -> (text, name), used as resolve() would return them.
_provided: ContextVar[dict[str, tuple[str, str]] | None] = ContextVar("kernel_eval_provided_sources", default=None)
#: The caller's working directory, where it is not this process's (a CLI served by the daemon).
_cwd: ContextVar[Path | None] = ContextVar("kernel_eval_source_cwd", default=None)


class RootsError(ValueError):
    """A configured root is not a directory."""


def server_roots(extra: Sequence[str] = ()) -> tuple[Path, ...]:
    """The working directory plus `extra` (--root), each resolved; RootsError for a non-directory."""
    roots = [Path.cwd().resolve()]
    for root in extra:
        path = Path(root).expanduser().resolve()
        if not path.is_dir():
            raise RootsError(f"--root {root}: not a directory")
        roots.append(path)
    return tuple(dict.fromkeys(roots))


@contextlib.contextmanager
def confined(roots: Sequence[Path]) -> Iterator[None]:
    """Within this block (and threads started from it with its context), paths must lie under `roots`."""
    token = _roots.set(tuple(roots))
    try:
        yield
    finally:
        _roots.reset(token)


@contextlib.contextmanager
def provided(resolved: dict[str, tuple[str, str]]) -> Iterator[None]:
    """Within this block, resolve(value) returns resolved[value] without reading anything: a batch
    reads each path once, where the caller's roots apply, and its workers (other processes or
    machines, which may not see the file) judge exactly that text under the same name."""
    token = _provided.set(resolved)
    try:
        yield
    finally:
        _provided.reset(token)


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    """Within this block, relative paths resolve against `path` instead of the process's directory."""
    token = _cwd.set(Path(path))
    try:
        yield
    finally:
        _cwd.reset(token)


def _caller_cwd() -> Path:
    return _cwd.get() or Path.cwd()


def _absolute(path: Path) -> Path:
    """`path` (user expanded) against the caller's working directory, not normalised."""
    path = path.expanduser()
    return path if path.is_absolute() else _caller_cwd() / path


def _under(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _in_the_home(real: Path) -> bool:
    """The server's own state ($KERNEL_EVAL_HOME): its store, tokens and the directories sandboxed jobs
    write into (their Triton caches). Never a source, whatever the roots hold: a job could plant
    what a client then names there."""
    try:
        home = default_state_dir().resolve()
    except (OSError, RuntimeError):
        return False
    return _under(real, (home,))


def _confined_path(stripped: str, role: str, roots: Sequence[Path]) -> Path:
    spelled = Path(os.path.normpath(_absolute(Path(stripped))))
    try:
        real = spelled.resolve() if _under(spelled, roots) else None
    except (OSError, RuntimeError):  # a link changing under it, or a loop: not a path this server reads
        real = None
    if real is None or not _under(real, roots) or _in_the_home(real):
        raise ToolInputError(
            f"{role}: {stripped!r} is not readable by this server: a path must lie under the server's working "
            "directory, a --root directory or a root the client declared (symlinks resolved). Move the file there, "
            "start the server with --root DIR, or pass the source text itself"
        )
    return real


class _NotRegular(Exception):
    pass


class _TooLarge(Exception):
    pass


def _read_once(path: Path, roots: Sequence[Path] | None) -> bytes:
    """The file's bytes, read through one descriptor whose fstat makes the checks (a regular file, not
    too large): what is checked is what is read, whatever is renamed or linked meanwhile. Confined,
    the path is walked from its root one component at a time with O_NOFOLLOW, so a component swapped
    for a symlink after the check (to a file outside the roots) is refused, not followed; O_NONBLOCK,
    so a FIFO swapped in cannot stall the server."""
    if roots is None:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    else:
        root = next(r for r in roots if path == r or path.is_relative_to(r))
        fd = os.open(root, os.O_RDONLY | os.O_CLOEXEC | os.O_DIRECTORY)
        parts = path.relative_to(root).parts
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_NONBLOCK if last else os.O_DIRECTORY)
            try:
                child = os.open(part, flags, dir_fd=fd)
            finally:
                os.close(fd)
            fd = child
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotRegular()
        if info.st_size > MAX_SOURCE_BYTES:
            raise _TooLarge()
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_SOURCE_BYTES:
                raise _TooLarge()
        return b"".join(chunks)
    finally:
        os.close(fd)


def _looks_like_a_path(text: str) -> bool:
    """One word with a directory separator or a file suffix: no source anyone means to pass."""
    return not any(c.isspace() for c in text) and ("/" in text or re.search(r"\.[A-Za-z]\w*$", text) is not None)


def _not_found(role: str, text: str) -> ToolInputError:
    where = "" if Path(text).expanduser().is_absolute() else f" (relative paths resolve against {_caller_cwd()})"
    return ToolInputError(
        f"{role}: no such file {text!r}{where}; pass the Python source itself or the path of a .py file"
    )


def given_path(value: str) -> str | None:
    """The path a source value names (stripped, as spelled), or None when it is source text: a one-line
    value that ends in .py or looks like a path (resolve() reads it as a file, whatever its suffix)."""
    stripped = value.strip()
    if "\n" not in stripped and (stripped.endswith(".py") or _looks_like_a_path(stripped)):
        return stripped
    return None


def resolve(value: str, role: str) -> tuple[str, str]:
    """(source text, the name errors should show). `role` is 'reference' or 'candidate'.

    A one-line value that names a file or looks like a path is read as one; only a .py file is
    accepted, so a directory or a .txt never gets compiled as source text.
    """
    given = _provided.get()
    if given is not None and value in given:
        return given[value]
    stripped = given_path(value)
    if stripped is not None:
        roots = _roots.get()
        path = _absolute(Path(stripped)) if roots is None else _confined_path(stripped, role, roots)
        shown = str(Path(stripped).expanduser()) if roots is None else str(path)  # as the user spelled it
        if path.is_dir():
            raise ToolInputError(
                f"{role}: {stripped} is a directory, not a .py file; pass the path of the .py file "
                f"(e.g. {stripped.rstrip('/')}/{role}.py) or the Python source itself"
            )
        if not path.exists():
            raise _not_found(role, stripped)
        if path.suffix != ".py":
            raise ToolInputError(f"{role}: {stripped} is not a .py file; pass a .py file or the Python source itself")
        try:
            data = _read_once(path, roots)
        except _NotRegular:
            raise ToolInputError(f"{role}: {stripped} is not a regular file") from None
        except _TooLarge:
            raise ToolInputError(f"{role}: {stripped} is larger than {MAX_SOURCE_BYTES} bytes") from None
        except OSError as exc:
            raise ToolInputError(f"{role}: cannot read {stripped}: {exc.strerror or exc}") from None
        try:
            return data.decode(), shown
        except UnicodeDecodeError as exc:
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
