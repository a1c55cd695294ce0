"""Describe an exception from user code in the user's terms: their file, line, column, source line.

Handles plain Python errors (the deepest frame in a user file), SyntaxError, Triton interpreter
errors (the innermost cause carries the user frame, also through @jit helpers), Triton
CompilationError (node position relative to the kernel's `def` line), and the constructs the
interpreter cannot run (type `unsupported`, with the reason and what to do in `hint`).
"""

from __future__ import annotations

import linecache
import re
import traceback

MAX_MESSAGE = 2000
MAX_FRAMES = 8


def _first_lines(text: str, limit: int = MAX_MESSAGE) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + " ..."


def _is_compilation_error(exc) -> bool:
    try:
        from triton.compiler.errors import CompilationError
    except ImportError:
        return False
    return isinstance(exc, CompilationError)


def _innermost_compilation_error(exc):
    """An error in a called @jit helper wraps the caller's: the innermost one says what and where."""
    while _is_compilation_error(getattr(exc, "__cause__", None)):
        exc = exc.__cause__
    return exc


def _file_of(fn) -> str | None:
    """A JITFunction's file (Triton 3.9 has `file_name`; 3.6 only the function's code object)."""
    return getattr(fn, "file_name", None) or getattr(
        getattr(getattr(fn, "fn", None), "__code__", None), "co_filename", None
    )


def _def_line(fn) -> int:
    """The file line of a JITFunction's `def` (Triton 3.9 records it; 3.6 only the first decorator's)."""
    line = getattr(fn, "def_file_line_number", None)
    if line is not None:
        return line
    raw = getattr(fn, "raw_src", None) or []
    return fn.starting_line_number + next((i for i, text in enumerate(raw) if re.match(r"\s*def\s", text)), 0)


def _compilation_error_position(exc, jit_functions):
    """(file, line, col) of a triton CompilationError, located in the kernel whose source it is."""
    inner = _innermost_compilation_error(exc)
    node, src = getattr(inner, "node", None), getattr(inner, "src", None)
    if node is None or src is None:
        return None
    for fn in jit_functions:
        if getattr(fn, "src", None) == src:
            path = _file_of(fn)
            if path is None:
                return None
            return path, _def_line(fn) + node.lineno - 1, getattr(node, "col_offset", 0) + 1
    return None


def _user_jit_functions(user_files: dict[str, str]) -> list:
    """The JITFunctions defined in the user's files (found only when an error needs them)."""
    import gc

    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    return [o for o in gc.get_objects() if isinstance(o, JITFunction) and _file_of(o) in user_files]


def error_info(phase: str, type_name: str, message: str, file: str | None = None) -> dict:
    """The error dict every job reports (tools.models.task.ErrorInfo's fields)."""
    return {
        "phase": phase,
        "type": type_name,
        "message": message,
        "file": file,
        "line": None,
        "column": None,
        "source_line": None,
        "traceback": [],
    }


def describe(exc: BaseException, user_files: dict[str, str], phase: str, jit_functions=()) -> dict:
    """A JSON-able description. `user_files` maps sandbox paths to the names the user knows;
    `jit_functions` are the kernels a CompilationError may come from."""
    original, chain = exc, [exc]  # a @jit helper wraps its error in one more InterpreterError per call level
    while type(original).__name__ == "InterpreterError" and original.__cause__ is not None and len(chain) < 32:
        original = original.__cause__
        chain.append(original)
    info = error_info(phase, type(original).__name__, _first_lines(str(original) or type(original).__name__))
    if isinstance(original, SyntaxError) and original.filename in user_files:
        info.update(
            file=user_files[original.filename],
            line=original.lineno,
            column=original.offset,
            source_line=(original.text or "").rstrip("\n") or None,
            message=original.msg,
        )
        return info
    if _is_compilation_error(original):
        position = _compilation_error_position(original, list(jit_functions) or _user_jit_functions(user_files))
        if position:
            path, line, col = position
            info.update(
                file=user_files.get(path, path),
                line=line,
                column=col,
                source_line=linecache.getline(path, line).rstrip("\n") or None,
            )
        message = getattr(_innermost_compilation_error(original), "error_message", None)
        if message:
            info["message"] = _first_lines(str(message))
        return info
    frames = [f for level in chain for f in traceback.extract_tb(level.__traceback__)]  # kernel -> helpers -> construct
    user_frames = [f for f in frames if f.filename in user_files]
    info["traceback"] = [
        f"{user_files[f.filename]}:{f.lineno} in {f.name}: {(f.line or '').strip()}" for f in user_frames[-MAX_FRAMES:]
    ]
    if user_frames and info["line"] is None:
        deepest = user_frames[-1]
        colno = getattr(deepest, "colno", None)  # Python 3.11+
        info.update(
            file=user_files[deepest.filename],
            line=deepest.lineno,
            column=colno + 1 if colno is not None else None,
            source_line=(deepest.line or "").rstrip() or None,
        )
    if not user_frames and frames:  # raised outside the user's code: show where
        last = frames[-1]
        info["traceback"] = [f"{last.filename}:{last.lineno} in {last.name}"]
    limitation = interpreter_limitation(original, frames)
    if limitation is not None:
        info.update(type="unsupported", message=_first_lines(limitation[0]), hint=limitation[1])
    elif type(original).__name__ == "CompiledTritonRejects":  # interpreter_compat's (it imports Triton)
        info.update(type="CompileTimeError", hint=str(getattr(original, "hint", "")) or None)
    elif type(original).__name__ == "StaticAssertionFailure":
        info.update(type="CompileTimeAssertionFailure", message=f"tl.static_assert failed: {info['message']}")
    return info


#: NotImplementedError messages of Triton's interpreter: (text in the message, reason, what to do).
KNOWN_LIMITS = (
    (
        "Block pointers have been removed",
        "tl.make_block_ptr / tl.advance: block pointers were removed in Triton 3.9 (compiled and interpreted)",
        "rewrite the loads and stores with tl.make_tensor_descriptor(base, shape, strides, block_shape) and "
        "desc.load([offsets]) / desc.store([offsets], value), or run on backend='cuda' with a Triton that still "
        "has block pointers (3.8 or older)",
    ),
    (
        "inline_asm not supported",
        "tl.inline_asm_elementwise: the interpreter cannot run inline PTX",
        "run on backend='cuda'",
    ),
    (
        "extern_elementwise not supported",
        "tl.extern_elementwise: the interpreter cannot call external device libraries",
        "use tl / libdevice functions, or run on backend='cuda'",
    ),
)


def interpreter_limitation(exc: BaseException, frames) -> tuple[str, str] | None:
    """(message, what to do) when `exc` is a construct the Triton interpreter cannot run: an
    InterpreterLimitation from the compatibility layer, or a NotImplementedError raised inside
    Triton itself. None for the user's own errors."""
    if getattr(exc, "kernel_eval_unsupported", False):
        # an interpreter_compat.InterpreterLimitation (not imported here: that module imports Triton)
        construct, reason, todo = (str(getattr(exc, name, "?")) for name in ("construct", "reason", "todo"))
        return (f"the Triton interpreter (cpu backend) cannot run {construct}: {reason}", todo)
    if not isinstance(exc, NotImplementedError) or not frames or "/triton/" not in frames[-1].filename:
        return None
    text = str(exc)
    for needle, reason, todo in KNOWN_LIMITS:
        if needle in text:
            return (f"the Triton interpreter (cpu backend) cannot run {reason}", todo)
    return (
        f"the Triton interpreter (cpu backend) does not implement this: {text or 'NotImplementedError'} "
        f"(in {frames[-1].name})",
        "run on backend='cuda' (compiled Triton)",
    )
