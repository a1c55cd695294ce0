"""fix_layout from what input_layout found: the input handed to the kernel in the memory order it reads.

input_layout showed the candidate passes when one input's memory holds its dimensions in another order
(under its own shape). The patch does exactly that at the top of ModelNew.forward, so the verified re-run
is the experiment's own trial; fixing the kernel's index arithmetic instead (and dropping the copy) is
the better fix where the kernel is yours, and the guidance says so.
"""

from __future__ import annotations

import ast

from tools import pyast


def _forward(tree: ast.Module) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return item
    return None


def from_evidence(source: str, evidence: dict) -> str | None:
    """The candidate with input `evidence['input']` re-laid as `evidence['order']` on entering forward."""
    if evidence.get("experiment") != "input_layout":
        return None
    index, order = evidence.get("input"), evidence.get("order")  # evidence numbers come back as floats
    index = int(index) if isinstance(index, (int, float)) and float(index).is_integer() else None
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return None
    forward = _forward(tree)
    if forward is None or not isinstance(index, int) or not isinstance(order, list):
        return None
    params = [a.arg for a in forward.args.args[1:]]
    if index >= len(params) or not forward.body:
        return None
    name = params[index]
    body = forward.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    if docstring and len(body) == 1:
        return None
    first = body[1] if docstring else body[0]
    lines = source.splitlines(keepends=True)
    indent = " " * first.col_offset
    dims = ", ".join(str(int(d)) for d in order)
    added = (
        f"{indent}# the kernel reads {name} with its dims in the order ({dims}): hand it that memory layout\n"
        f"{indent}{name} = {name}.permute({dims}).contiguous().reshape({name}.shape)\n"
    )
    at = first.lineno - 1
    return "".join(lines[:at]) + added + "".join(lines[at:])
