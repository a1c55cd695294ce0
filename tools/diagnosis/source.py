"""What the candidate's source shows: cheap syntactic evidence the detectors weigh.

Read with Python's ast (the source parsed; nothing runs). Each finding names the line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

LOW_PRECISION = {"float16", "bfloat16", "float8e4nv", "float8e5", "float8_e4m3fn", "float8_e5m2"}


@dataclass
class SourceFacts:
    low_precision_accumulator: list[int] = field(default_factory=list)  # lines
    dot_accumulate_in_loop: list[int] = field(default_factory=list)  # acc += tl.dot(...) inside for
    dot_without_ieee: list[int] = field(default_factory=list)
    rtz_cast: list[int] = field(default_factory=list)
    floor_division_grid: list[int] = field(default_factory=list)
    unmasked_memory: list[int] = field(default_factory=list)  # tl.load / tl.store without mask
    exp_without_max: list[int] = field(default_factory=list)
    atomic_add: list[int] = field(default_factory=list)
    log_one_plus: list[int] = field(default_factory=list)
    one_pass_variance: list[int] = field(default_factory=list)
    block_sizes: dict[str, list[int]] = field(default_factory=dict)  # BLOCK* name -> integer values given

    def blocks(self, contains: str = "") -> list[int]:
        return sorted({v for name, values in self.block_sizes.items() if contains in name for v in values})
    parse_error: str | None = None


def _attr_name(node) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_attr_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _calls(node, name: str):
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _attr_name(n.func).endswith(name):
            yield n


def _kw(call: ast.Call, name: str):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_low_precision(node) -> bool:
    return _attr_name(node).split(".")[-1] in LOW_PRECISION


def analyze(source: str) -> SourceFacts:
    facts = SourceFacts()
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        facts.parse_error = str(exc)
        return facts
    for call in _calls(tree, "zeros"):
        dtype = _kw(call, "dtype")
        if dtype is not None and _is_low_precision(dtype):
            facts.low_precision_accumulator.append(call.lineno)
    for loop in (n for n in ast.walk(tree) if isinstance(n, ast.For)):
        for node in ast.walk(loop):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
                if any(True for _ in _calls(node.value, "dot")):
                    facts.dot_accumulate_in_loop.append(node.lineno)
                for call in _calls(node.value, "to"):
                    if call.args and _is_low_precision(call.args[0]):
                        facts.low_precision_accumulator.append(node.lineno)
    for call in _calls(tree, "dot"):
        if _attr_name(call.func) in ("tl.dot", "triton.language.dot"):
            precision = _kw(call, "input_precision")
            tf32 = _kw(call, "allow_tf32")
            ieee = isinstance(precision, ast.Constant) and precision.value == "ieee"
            if not ieee and not (isinstance(tf32, ast.Constant) and tf32.value is False):
                facts.dot_without_ieee.append(call.lineno)
    for call in _calls(tree, "to"):
        rounding = _kw(call, "fp_downcast_rounding")
        if isinstance(rounding, ast.Constant) and rounding.value == "rtz":
            facts.rtz_cast.append(call.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and "grid" in t.id for t in node.targets):
            if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv) for n in ast.walk(node.value)):
                facts.floor_division_grid.append(node.lineno)
    for name in ("load", "store"):
        for call in _calls(tree, name):
            if _attr_name(call.func) == f"tl.{name}" and _kw(call, "mask") is None and len(call.args) < 3:
                facts.unmasked_memory.append(call.lineno)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    for fn in functions:
        exps = [c for c in _calls(fn, "exp") if _attr_name(c.func) in ("tl.exp", "tl.math.exp")]
        if exps and not any(True for _ in _calls(fn, "max")):
            facts.exp_without_max.extend(c.lineno for c in exps)
        for call in _calls(fn, "log"):
            if _attr_name(call.func) in ("tl.log", "tl.math.log") and call.args and isinstance(call.args[0], ast.BinOp):
                operands = (call.args[0].left, call.args[0].right)
                if any(isinstance(o, ast.Constant) and o.value in (1, 1.0) for o in operands):
                    facts.log_one_plus.append(call.lineno)
        for node in ast.walk(fn):  # E[x^2] - E[x]^2
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
                left_sums_square = any(isinstance(a, ast.BinOp) and isinstance(a.op, ast.Mult)
                                       and ast.dump(a.left) == ast.dump(a.right)
                                       for c in _calls(node.left, "sum") for a in c.args[:1])
                right_square = isinstance(node.right, ast.BinOp) and isinstance(node.right.op, ast.Mult) \
                    and ast.dump(node.right.left) == ast.dump(node.right.right)
                if left_sums_square and right_square:
                    facts.one_pass_variance.append(node.lineno)
    facts.atomic_add = [c.lineno for c in _calls(tree, "atomic_add")]
    facts.block_sizes = _block_sizes(tree)
    return facts


def _block_sizes(tree) -> dict[str, list[int]]:
    """BLOCK_M = 64, `BLOCK_M, BLOCK_N = 64, 32`, and BLOCK_M=64 as a keyword argument."""
    found: dict[str, set[int]] = {}

    def add(name: str, value) -> None:
        if "BLOCK" in name.upper() and isinstance(value, ast.Constant) and isinstance(value.value, int) \
                and not isinstance(value.value, bool) and value.value > 0:
            found.setdefault(name.upper(), set()).add(value.value)

    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg:
            add(node.arg, node.value)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for name, value in zip(names, values, strict=False):
                    if isinstance(name, ast.Name):
                        add(name.id, value)
    return {name: sorted(values) for name, values in found.items()}
