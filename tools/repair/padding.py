"""The padding of masked loads (`tl.load(..., mask=..., other=<constant>)`): where they are, and one rewritten.

The lanes a mask turns off take the `other` value. A correct kernel either keeps them out of its result or
pads with the identity of what they feed (0 for a sum, -inf for a max or an exp-sum); a kernel whose padded
lanes enter a result with the wrong value fails, and passes once that one constant is right. Rewriting the
constant is plain text surgery at the positions Python's own parser reports (the rest stays as written).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from tools import pyast

#: Padding values tried in place of a load's own (as written, and their value): the identities of sum and
#: product, and of max / min.
ALTERNATIVES = (("0.0", 0.0), ("1.0", 1.0), ("float('-inf')", -math.inf), ("float('inf')", math.inf))


@dataclass(frozen=True)
class PaddedLoad:
    line: int
    value: float  # the padding as written, evaluated
    text: str  # as written
    start: tuple[int, int]  # (line, column) of the `other` expression, as ast reports (1-based line)
    end: tuple[int, int]


def _constant(node: ast.expr) -> float | None:
    """A literal number, +-inf / nan through float('...'), or a unary minus of either."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return -inner if inner is not None else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "float"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        try:
            return float(node.args[0].value)
        except ValueError:
            return None
    return None


def _is_load(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "load"


def padded_loads(source: str) -> list[PaddedLoad]:
    """Masked loads padded with a constant, in source order."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not _is_load(node):
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        other = keywords.get("other")
        if "mask" not in keywords or other is None or other.end_lineno is None or other.end_col_offset is None:
            continue
        value = _constant(other)
        if value is None:
            continue
        text = ast.get_source_segment(source, other) or ""
        found.append(
            PaddedLoad(
                other.lineno, value, text, (other.lineno, other.col_offset), (other.end_lineno, other.end_col_offset)
            )
        )
    return sorted(found, key=lambda load: load.start)


def with_padding(source: str, load: PaddedLoad, value: str) -> str:
    """`source` with that load's padding replaced by the expression `value`."""
    lines = source.splitlines(keepends=True)
    (l0, c0), (l1, c1) = load.start, load.end
    head = "".join(lines[: l0 - 1]) + _prefix(lines[l0 - 1], c0)
    tail = _suffix(lines[l1 - 1], c1) + "".join(lines[l1:])
    return head + value + tail


def _prefix(line: str, column: int) -> str:
    """The line up to an ast column (a UTF-8 byte offset)."""
    return line.encode()[:column].decode()


def _suffix(line: str, column: int) -> str:
    return line.encode()[column:].decode()


def from_evidence(source: str, evidence: dict) -> str | None:
    """The padding_value experiment's finding applied: the load at its line padded as it passed."""
    if evidence.get("experiment") != "padding_value":
        return None
    value = next((text for text, _ in ALTERNATIVES if text == evidence.get("passes_with")), None)
    load = next((load for load in padded_loads(source) if load.line == evidence.get("line")), None)
    return with_padding(source, load, value) if load is not None and value is not None else None
