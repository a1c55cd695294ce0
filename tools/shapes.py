"""Sizes beyond the task's: which module-level size constants a KernelBench-style reference has, the size
assignments a shape check tries, and the reference rewritten for one of them.

A reference names its sizes as module-level integer constants that `get_inputs()` / `get_init_inputs()`
read (batch_size, dim, M, N, K, ...). The rewrite replaces the literal in the constant's own assignment,
so everything the module derives from it (other constants, default arguments, both functions) sees the
new value and weights and inputs stay consistent. Integers below MIN_SIZE are not sizes (a reduction
axis, a kernel size, a stride): they are never changed.

The default sizes exercise what a kernel written for one shape gets wrong: about half of each size made
odd (no block size divides it: tails; a hard-coded size or an even-division grid breaks), and small odd
sizes (one partial block). Both are smaller than the task's, so they cost less than the task itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools import pyast

#: Module-level integers below this are not sizes (axes, kernel sizes, strides, group counts).
MIN_SIZE = 8
#: Names that hold integers without being sizes.
NOT_SIZES = frozenset({"seed", "SEED", "random_seed", "eps", "EPS"})
SMALL = 17  # a small odd size: one partial block of any power-of-two BLOCK >= 32


class ShapeInputError(ValueError):
    """An explicit size assignment names a constant the reference does not have (or a bad value)."""


@dataclass(frozen=True)
class SizeConstant:
    name: str
    value: int
    node: ast.Constant  # the literal in the reference's own assignment


def size_constants(reference_text: str) -> dict[str, SizeConstant]:
    """The reference's module-level size constants, by name (the first assignment of each)."""
    found: dict[str, SizeConstant] = {}
    for node in pyast.parse(reference_text).body:
        for name, value in _assigned(node):
            if (
                isinstance(value, ast.Constant)
                and type(value.value) is int
                and value.value >= MIN_SIZE
                and name not in NOT_SIZES
                and name not in found
            ):
                found[name] = SizeConstant(name, value.value, value)
    return found


def _assigned(node: ast.stmt) -> list[tuple[str, ast.expr]]:
    """(name, value) of `N = 4096`, `N: int = 4096` and `M, N = 1024, 2048` at module level."""
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return [(node.target.id, node.value)]
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return []
    target = node.targets[0]
    if isinstance(target, ast.Name):
        return [(target.id, node.value)]
    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts):
        return [(t.id, v) for t, v in zip(target.elts, node.value.elts, strict=True) if isinstance(t, ast.Name)]
    return []


def _halved_odd(n: int) -> int:
    return max(MIN_SIZE + 1, (n // 2) | 1)


def _small(n: int) -> int:
    return SMALL if n > SMALL else max(3, (n - 2) | 1)


def _minus_one(n: int) -> int:
    return n - 1


def _prime_below(n: int) -> int:
    k = max(3, (n // 3) | 1)
    while any(k % d == 0 for d in range(3, int(k**0.5) + 1, 2)):
        k -= 2
    return k


#: Fuzzed assignments, in the order a count takes them: each maps every size to another.
GENERATORS = (("about half, odd", _halved_odd), ("small", _small), ("one less", _minus_one), ("prime", _prime_below))


def screen_sizes(constants: dict[str, SizeConstant], fixed: set[str]) -> dict[str, int]:
    """Sizes a quarter of the task's (odd, at least SMALL) for every size not in `fixed`: a smaller run of
    the same task, for trials that only need to tell a failing candidate from a passing one."""
    sizes = {name: max(SMALL, (c.value // 4) | 1) for name, c in constants.items() if name not in fixed}
    return {name: value for name, value in sizes.items() if value < constants[name].value}


def fuzzed(constants: dict[str, SizeConstant], count: int, fixed: set[str]) -> list[dict[str, int]]:
    """Up to `count` assignments of new values to the sizes not in `fixed` (distinct, none the task's own)."""
    task = {name: c.value for name, c in constants.items()}
    out: list[dict[str, int]] = []
    for _, make in GENERATORS:
        sizes = {name: make(value) for name, value in task.items() if name not in fixed}
        sizes = {name: value for name, value in sizes.items() if value != task[name] and value >= 1}
        if sizes and sizes not in out:
            out.append(sizes)
        if len(out) == count:
            break
    return out


def explicit(constants: dict[str, SizeConstant], assignments: list[dict[str, int]], fixed: set[str]) -> list[dict]:
    """The caller's assignments, checked against the reference's constants."""
    for sizes in assignments:
        unknown = sorted(set(sizes) - set(constants))
        if unknown:
            known = ", ".join(f"{n}={c.value}" for n, c in constants.items()) or "none"
            raise ShapeInputError(
                f"shapes: {', '.join(unknown)} is not a module-level size constant of the reference (it has: {known})"
            )
        pinned = sorted(set(sizes) & fixed)
        if pinned:
            raise ShapeInputError(f"shapes: {', '.join(pinned)} is in fixed_sizes: the task forbids changing it")
        bad = [f"{n}={v}" for n, v in sizes.items() if v < 1]
        if bad:
            raise ShapeInputError(f"shapes: sizes must be at least 1 ({', '.join(bad)})")
    return [dict(s) for s in assignments]


def rewrite(reference_text: str, constants: dict[str, SizeConstant], sizes: dict[str, int]) -> str:
    """The reference with each named constant's literal replaced (line and column kept for tracebacks)."""
    lines = reference_text.splitlines(keepends=True)
    edits = sorted(
        ((constants[name].node, value) for name, value in sizes.items()),
        key=lambda e: (e[0].lineno, e[0].col_offset),
        reverse=True,
    )
    for node, value in edits:
        row = node.lineno - 1
        assert node.end_lineno == node.lineno and node.end_col_offset is not None  # an int literal is one token
        line = lines[row].encode()
        lines[row] = (line[: node.col_offset] + str(value).encode() + line[node.end_col_offset :]).decode()
    return "".join(lines)


def describe(sizes: dict[str, int]) -> str:
    """'N=2049, M=17'."""
    return ", ".join(f"{name}={value}" for name, value in sizes.items())
