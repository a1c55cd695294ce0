"""The operator's ceilings on what a caller may ask a sandboxed job for: memory and wall time.

A request above a ceiling is clamped to it and the result says so (warnings); nothing a client
sends can buy a job more. Set them with `kernel-eval serve --max-memory-mb / --max-timeout-s`
or the environment ($KERNEL_EVAL_MAX_MEMORY_MB, $KERNEL_EVAL_MAX_TIMEOUT_S; the CLI's daemon reads
the same variables). Defaults: half of this machine's memory (at least 4096 MiB), and 900 s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

MEMORY_ENV = "KERNEL_EVAL_MAX_MEMORY_MB"
TIMEOUT_ENV = "KERNEL_EVAL_MAX_TIMEOUT_S"
DEFAULT_TIMEOUT_S = 900.0
MIN_MEMORY_MB = 256  # what the request models accept at the least; a lower ceiling would refuse every job


class CeilingError(ValueError):
    """A ceiling set in the environment is not a usable number; the message says which and why."""


@dataclass(frozen=True)
class Ceilings:
    memory_mb: int
    timeout_s: float


def _machine_memory_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20
    except (ValueError, OSError):
        return 8192


def _number(name: str, default: float, least: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise CeilingError(f"${name}={raw!r} is not a number") from None
    if not least <= value < float("inf"):
        raise CeilingError(f"${name}={raw!r} must be a finite number >= {least:g}")
    return value


def current() -> Ceilings:
    """The ceilings in force in this process (read from the environment each call)."""
    memory = _number(MEMORY_ENV, max(4096, _machine_memory_mb() // 2), MIN_MEMORY_MB)
    return Ceilings(memory_mb=int(memory), timeout_s=_number(TIMEOUT_ENV, DEFAULT_TIMEOUT_S, 1.0))


def configure(memory_mb: int | None, timeout_s: float | None) -> Ceilings:
    """Set this process's ceilings (the server's flags; None keeps the environment's) and check them:
    CeilingError for a value no job could run under."""
    if memory_mb is not None:
        os.environ[MEMORY_ENV] = str(memory_mb)
    if timeout_s is not None:
        os.environ[TIMEOUT_ENV] = repr(float(timeout_s))
    return current()


def clamp(memory_mb: int, timeout_s: float) -> tuple[int, float, list[tuple[str, str]]]:
    """(memory_mb, timeout_s) within the ceilings, and (field, note) for each that was lowered."""
    limits = current()
    notes = []
    if memory_mb > limits.memory_mb:
        notes.append(
            (
                "memory_mb",
                f"memory_mb {memory_mb} is above the operator's ceiling: the job got {limits.memory_mb} MiB "
                f"(set by `kernel-eval serve --max-memory-mb` or ${MEMORY_ENV})",
            )
        )
        memory_mb = limits.memory_mb
    if timeout_s > limits.timeout_s:
        notes.append(
            (
                "timeout_s",
                f"timeout_s {timeout_s:g} is above the operator's ceiling: each job got {limits.timeout_s:g} s "
                f"(set by `kernel-eval serve --max-timeout-s` or ${TIMEOUT_ENV})",
            )
        )
        timeout_s = limits.timeout_s
    return memory_mb, timeout_s, notes
