"""Patches to a Triton candidate, made on its syntax tree (libcst, which keeps the rest as written).

Each patch finds the construct its fix addresses and rewrites it, or returns None when the
construct is not there (the fix is then guidance only). Verification (re-running the patched
candidate) decides whether a patch is right; nothing here assumes it.
"""

from __future__ import annotations

from typing import TypeVar

import libcst as cst
import libcst.matchers as m

from tools import pyast
from tools.repair import source as source_facts
from tools.repair.syntax import TL
from tools.repair.syntax import code as _code
from tools.repair.syntax import kwarg as _kwarg
from tools.repair.syntax import tl_attr as _tl

LOW = ("float16", "bfloat16")


def _is_low(node) -> bool:
    return m.matches(node, m.Attribute(value=TL, attr=m.Name(LOW[0])) | m.Attribute(value=TL, attr=m.Name(LOW[1])))


N = TypeVar("N", bound=cst.CSTNode)


def _find(node: cst.CSTNode, matcher: m.BaseMatcherNode, kind: type[N]) -> list[N]:
    """The nodes under `node` that `matcher` matches, typed as `kind`: the node class it matches."""
    return [n for n in m.findall(node, matcher) if isinstance(n, kind)]


def _names(node: cst.CSTNode) -> set[str]:
    """Every identifier used in `node`."""
    return {n.value for n in _find(node, m.Name(), cst.Name)}


def _with_kwarg(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(
        args=[
            *args,
            cst.Arg(
                keyword=cst.Name(name),
                value=value,
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                ),
            ),
        ]
    )


class Transformer(cst.CSTTransformer):
    def __init__(self):
        super().__init__()
        self.changed = False


def parse(source: str) -> cst.Module | None:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None


def run(source: str, transformer: Transformer) -> str | None:
    """The source rewritten by `transformer`, or None when it changed nothing."""
    tree = parse(source)
    if tree is None:
        return None
    new = tree.visit(transformer)
    return new.code if transformer.changed and new.code != source else None


# --- fp32_accumulator --------------------------------------------------------------------------


class _Fp32Accumulator(Transformer):
    """Low-precision tl.zeros accumulators -> fp32; `acc += x.to(fp16)` -> `acc += x`;
    `acc += tl.sum(x)` -> `acc += tl.sum(x.to(tl.float32))`; tl.dot(out_dtype=fp16) -> fp32;
    tl.cumsum(x) -> tl.cumsum(x.to(tl.float32)); loads not yet upcast and never fed to tl.dot
    -> `.to(tl.float32)` (low-precision data then meets fp32 arithmetic on the whole
    accumulation path; stores convert back to the pointer's type). With upcast=False only the
    narrowings are undone (loads, sums and cumsums of fp32 data are fp32 already)."""

    def __init__(self, dot_operands: set[str], upcast: bool = True, indices: dict[str, set[str]] | None = None):
        super().__init__()
        self.dot_operands = dot_operands
        self.upcast = upcast
        self.indices = indices or {}  # kernel -> names whose values address memory (never upcast)
        self.functions: list[str] = []
        self.accumulators: set[str] = set()  # names initialised with a low-precision tl.zeros / tl.full

    def visit_FunctionDef(self, node):
        self.functions.append(node.name.value)

    def leave_FunctionDef(self, original, updated):
        self.functions.pop()
        return updated

    def _is_index(self, name: str) -> bool:
        return bool(self.functions) and name in self.indices.get(self.functions[-1], set())

    def visit_Assign(self, node):
        target = node.targets[0].target
        call = node.value
        if (
            isinstance(target, cst.Name)
            and isinstance(call, cst.Call)
            and m.matches(call.func, _tl("zeros") | _tl("full"))
        ):
            dtype = _kwarg(call, "dtype")
            if dtype is not None and _is_low(dtype.value):
                self.accumulators.add(target.value)

    def leave_Assign(self, original, updated):
        target, value = updated.targets[0].target, updated.value
        if not isinstance(target, cst.Name):
            return updated
        if (
            self.upcast
            and target.value not in self.dot_operands
            and not self._is_index(target.value)
            and m.matches(value, m.Call(func=_tl("load")))
        ):
            self.changed = True
            return updated.with_changes(value=cst.parse_expression(f"{_code(value)}.to(tl.float32)"))
        # acc = (update).to(tl.float16) of a low-precision accumulator: keep the update in fp32
        if (
            target.value in self.accumulators
            and m.matches(value, m.Call(func=m.Attribute(attr=m.Name("to"))))
            and value.args
            and _is_low(value.args[0].value)
        ):
            self.changed = True
            return updated.with_changes(value=value.func.value)
        return updated

    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("full")):
            dtype = _kwarg(updated, "dtype")
            if dtype is not None and _is_low(dtype.value):
                self.changed = True
                return _with_kwarg(updated, "dtype", cst.parse_expression("tl.float32"))
        if (
            self.upcast
            and m.matches(updated.func, _tl("cumsum"))
            and updated.args
            and not m.matches(updated.args[0].value, m.Call(func=m.Attribute(attr=m.Name("to"))))
        ):
            self.changed = True
            upcast = cst.parse_expression(f"({_code(updated.args[0].value)}).to(tl.float32)")
            return updated.with_changes(args=[updated.args[0].with_changes(value=upcast), *updated.args[1:]])
        if m.matches(updated.func, _tl("zeros")):
            dtype = _kwarg(updated, "dtype")
            if dtype is not None and _is_low(dtype.value):
                self.changed = True
                return _with_kwarg(updated, "dtype", cst.parse_expression("tl.float32"))
        if m.matches(updated.func, _tl("dot")):
            out_dtype = _kwarg(updated, "out_dtype")
            if out_dtype is not None and _is_low(out_dtype.value):
                self.changed = True
                return _with_kwarg(updated, "out_dtype", cst.parse_expression("tl.float32"))
        return updated

    def leave_AugAssign(self, original, updated):
        value = updated.value
        # x.to(tl.float16) added into the accumulator: drop the narrowing
        if (
            m.matches(value, m.Call(func=m.Attribute(attr=m.Name("to"))))
            and value.args
            and _is_low(value.args[0].value)
        ):
            self.changed = True
            return updated.with_changes(value=value.func.value)
        # tl.sum(x, ...) of low-precision data: upcast first
        if self.upcast and m.matches(value, m.Call(func=_tl("sum"))) and value.args:
            first = value.args[0].value
            if not m.matches(first, m.Call(func=m.Attribute(attr=m.Name("to")))):
                self.changed = True
                upcast = cst.parse_expression(
                    f"({_code(first)}).to(tl.float32)"
                    if not isinstance(first, cst.Name)
                    else f"{first.value}.to(tl.float32)"
                )
                return updated.with_changes(
                    value=value.with_changes(args=[value.args[0].with_changes(value=upcast), *value.args[1:]])
                )
        return updated


# --- kahan_summation ---------------------------------------------------------------------------


class _Kahan(Transformer):
    """`acc += tl.dot(...)` in a loop -> the seed's Kahan-compensated update, with a
    compensation tensor initialised next to the accumulator."""

    def __init__(self):
        super().__init__()
        self.accumulators: set[str] = set()

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        if (
            isinstance(stmt, cst.AugAssign)
            and isinstance(stmt.operator, cst.AddAssign)
            and isinstance(stmt.target, cst.Name)
            and m.matches(stmt.value, m.Call(func=_tl("dot")))
        ):
            acc = stmt.target.value
            self.accumulators.add(acc)
            self.changed = True
            lines = [
                f"_partial = {_code(stmt.value)}",
                f"_y = _partial - {acc}_comp",
                f"_t = {acc} + _y",
                f"{acc}_comp = (_t - {acc}) - _y",
                f"{acc} = _t",
            ]
            return cst.FlattenSentinel([cst.parse_statement(line) for line in lines])
        return updated

    def leave_IndentedBlock(self, original, updated):
        """After `acc = tl.zeros(...)`, add `acc_comp = tl.zeros_like(acc)`."""
        body = []
        for statement in updated.body:
            body.append(statement)
            if (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
                and isinstance(statement.body[0], cst.Assign)
            ):
                assign = statement.body[0]
                target = assign.targets[0].target
                if (
                    isinstance(target, cst.Name)
                    and m.matches(assign.value, m.Call(func=_tl("zeros")))
                    and target.value in self.accumulators
                ):
                    body.append(cst.parse_statement(f"{target.value}_comp = tl.zeros_like({target.value})"))
        return updated.with_changes(body=body)


def kahan(source: str) -> str | None:
    # two passes: find the accumulators, then add their compensation next to their zeros
    first = _Kahan()
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    finder = _AccumulatorFinder()
    tree.visit(finder)
    if not finder.names:
        return None
    first.accumulators = set(finder.names)
    new = tree.visit(first)
    return new.code if first.changed else None


class _AccumulatorFinder(cst.CSTVisitor):
    def __init__(self):
        self.names: set[str] = set()

    def visit_AugAssign(self, node):
        if isinstance(node.target, cst.Name) and m.matches(node.value, m.Call(func=_tl("dot"))):
            self.names.add(node.target.value)


# --- simple call rewrites -----------------------------------------------------------------------


class _DotOperands(cst.CSTVisitor):
    def __init__(self):
        self.names: set[str] = set()

    def visit_Call(self, node):
        if m.matches(node.func, _tl("dot")):
            for arg in node.args[:2]:
                self.names |= _names(arg.value)


_ADDRESSING = ("load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas")


class _NameFlow(cst.CSTVisitor):
    """Per function: which names each assigned name's value is built from (`a = b + c`, `a += d`),
    so a set of names can be followed back through the function's assignments."""

    def __init__(self):
        self.uses: dict[str, dict[str, set[str]]] = {}  # function -> name -> names its value uses
        self.current: list[str] = []

    def visit_FunctionDef(self, node):
        self.current.append(node.name.value)

    def leave_FunctionDef(self, node):
        self.current.pop()

    def _define(self, target, value) -> None:
        if self.current and isinstance(target, cst.Name):
            self.uses.setdefault(self.current[-1], {}).setdefault(target.value, set()).update(_names(value))

    def visit_Assign(self, node):
        for target in node.targets:
            self._define(target.target, node.value)

    def visit_AugAssign(self, node):
        self._define(node.target, node.value)

    def closure(self, function: str, names) -> set[str]:
        """`names` and every name their values are built from, in `function`."""
        uses, seen, todo = self.uses.get(function, {}), set(), list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(uses.get(name, ()))
        return seen


class _IndexNames(_NameFlow):
    """Per kernel: the names whose values address memory or bound an access: everything the
    pointer of a load / store / atomic, a mask or a loop range is built from, followed back
    through the kernel's assignments. A loaded value among them is an index
    (a token id, a segment offset, a gathered row): it stays an integer."""

    def __init__(self):
        super().__init__()
        self.seeds: dict[str, set[str]] = {}

    def visit_Call(self, node):
        if not self.current:
            return
        seeds = self.seeds.setdefault(self.current[-1], set())
        if any(m.matches(node.func, _tl(kind)) for kind in _ADDRESSING) and node.args:
            seeds |= _names(node.args[0].value)
            mask = _kwarg(node, "mask")
            if mask is not None:
                seeds |= _names(mask.value)
        elif m.matches(node.func, m.Name("range") | _tl("range") | _tl("static_range")):
            for arg in node.args:
                seeds |= _names(arg.value)

    def indices(self) -> dict[str, set[str]]:
        return {function: self.closure(function, seeds) for function, seeds in self.seeds.items()}


def fp32_accumulator(source: str, upcast: bool = True) -> str | None:
    tree = parse(source)
    if tree is None:
        return None
    operands = _DotOperands()
    tree.visit(operands)
    indices = _IndexNames()
    tree.visit(indices)
    return run(source, _Fp32Accumulator(operands.names, upcast, indices.indices()))


class _IeeeDot(Transformer):
    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("dot")):
            precision = _kwarg(updated, "input_precision")
            if precision is None or not m.matches(precision.value, m.SimpleString('"ieee"') | m.SimpleString("'ieee'")):
                self.changed = True
                call = updated.with_changes(
                    args=[a for a in updated.args if not (a.keyword and a.keyword.value == "allow_tf32")]
                )
                return _with_kwarg(call, "input_precision", cst.SimpleString('"ieee"'))
        return updated


class _RoundNearest(Transformer):
    def leave_Arg(self, original, updated):
        if (
            updated.keyword is not None
            and updated.keyword.value == "fp_downcast_rounding"
            and m.matches(updated.value, m.SimpleString('"rtz"') | m.SimpleString("'rtz'"))
        ):
            self.changed = True
            return updated.with_changes(value=cst.SimpleString('"rtne"'))
        return updated


class _MaxSubtraction(Transformer):
    """In a kernel with tl.exp(x) and no tl.max: tl.exp(x) -> tl.exp(x - tl.max(x, axis=0)), and a
    tl.log of what that exp feeds (inline, or through the names assigned from it: a log-sum-exp) gets
    the max back: tl.log(s) -> tl.max(x, axis=0) + tl.log(s). A ratio (softmax) needs nothing back:
    the max cancels."""

    def __init__(self):
        super().__init__()
        self.stack: list[bool] = []
        self.shifted: dict[str, str] = {}  # a name whose value carries exp(x - max(x)) -> x

    def visit_FunctionDef(self, node):
        self.stack.append(bool(m.findall(node, m.Call(func=_tl("max")))))
        self.shifted = {}

    def leave_FunctionDef(self, original, updated):
        self.stack.pop()
        return updated

    def _carries(self, node) -> str | None:
        """The x whose max a shifted exp in `node` (directly or through a shifted name) took out."""
        for call in _find(node, m.Call(func=_tl("exp")), cst.Call):
            arg = _code(call.args[0].value) if call.args else ""
            if " - tl.max(" in arg:
                return arg.split(" - tl.max(", 1)[0]
        for name in _find(node, m.Name(), cst.Name):
            if name.value in self.shifted:
                return self.shifted[name.value]
        return None

    def leave_Assign(self, original, updated):
        x = self._carries(updated.value)
        if x is not None:
            for target in updated.targets:
                if isinstance(target.target, cst.Name):
                    self.shifted[target.target.value] = x
        return updated

    def leave_Call(self, original, updated):
        if (
            self.stack
            and not self.stack[-1]
            and m.matches(updated.func, _tl("exp"))
            and updated.args
            and isinstance(updated.args[0].value, cst.Name)
        ):
            name = updated.args[0].value.value
            self.changed = True
            return updated.with_changes(
                args=[updated.args[0].with_changes(value=cst.parse_expression(f"{name} - tl.max({name}, axis=0)"))]
            )
        if self.stack and not self.stack[-1] and m.matches(updated.func, _tl("log")) and updated.args:
            x = self._carries(updated.args[0].value)
            if x is not None:
                return cst.parse_expression(f"tl.max({x}, axis=0) + {_code(updated)}")
        return updated


class _TwoPassVariance(Transformer):
    """tl.sum(x * x, axis) / n - mean * mean -> tl.sum(d * d, axis) / n with d = x - mean (masked)."""

    def __init__(self, masks: dict[str, str]):
        super().__init__()
        self.masks = masks

    def leave_BinaryOperation(self, original, updated):
        if not isinstance(updated.operator, cst.Subtract):
            return updated
        left, right = updated.left, updated.right
        if not (
            isinstance(right, cst.BinaryOperation)
            and isinstance(right.operator, cst.Multiply)
            and _code(right.left) == _code(right.right)
        ):
            return updated
        mean = _code(right.left)
        sums = _find(left, m.Call(func=_tl("sum")), cst.Call)
        for call in sums:
            arg = call.args[0].value if call.args else None
            if (
                isinstance(arg, cst.BinaryOperation)
                and isinstance(arg.operator, cst.Multiply)
                and _code(arg.left) == _code(arg.right)
            ):
                x = _code(arg.left)
                mask = self.masks.get(x)
                d = f"tl.where({mask}, {x} - {mean}, 0.0)" if mask else f"({x} - {mean})"
                new_sum = call.with_changes(
                    args=[call.args[0].with_changes(value=cst.parse_expression(f"{d} * {d}")), *call.args[1:]]
                )
                self.changed = True
                return left.deep_replace(call, new_sum) if left is not call else new_sum
        return updated


class LoadMasks(cst.CSTVisitor):
    """name -> mask expression of `name = tl.load(..., mask=...)` (also `tl.load(...).to(...)`)."""

    def __init__(self):
        self.masks: dict[str, str] = {}

    def visit_Assign(self, node):
        target = node.targets[0].target
        loads = _find(node.value, m.Call(func=_tl("load")), cst.Call)
        if isinstance(target, cst.Name) and len(loads) == 1:
            mask = _kwarg(loads[0], "mask")
            if mask is not None:
                self.masks[target.value] = _code(mask.value)


def two_pass_variance(source: str) -> str | None:
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    finder = LoadMasks()
    tree.visit(finder)
    transformer = _TwoPassVariance(finder.masks)
    new = tree.visit(transformer)
    return new.code if transformer.changed else None


class _NanPropagation(Transformer):
    """tl.where(x > 0, x, 0) -> tl.where((x > 0) | (x != x), x, 0); tl.maximum(x, 0) likewise."""

    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("where")) and len(updated.args) == 3:
            cond, value = updated.args[0].value, updated.args[1].value
            if isinstance(cond, cst.Comparison) and _code(cond.left) == _code(value) and "!=" not in _code(cond):
                self.changed = True
                x = _code(value)
                return updated.with_changes(
                    args=[
                        updated.args[0].with_changes(value=cst.parse_expression(f"({_code(cond)}) | ({x} != {x})")),
                        *updated.args[1:],
                    ]
                )
        if m.matches(updated.func, _tl("maximum") | _tl("minimum")) and len(updated.args) == 2:
            x = _code(updated.args[0].value)
            self.changed = True
            return cst.parse_expression(f"tl.where({x} != {x}, {x}, {_code(updated)})")
        return updated


# --- boundary_mask -------------------------------------------------------------------------------

_PREFIXES = ("offs_", "offsets_", "off_", "idx_", "index_", "rows_", "cols_", "o_")
_ONE_D_BOUNDS = ("n_elements", "n", "N", "numel", "size", "n_cols", "num_elements")


class _SiblingMasks(cst.CSTVisitor):
    """Per kernel: the masks its masked loads and stores use, with the names their pointers are
    built from (through the kernel's assignments), so an unmasked access can take the mask of a
    sibling that indexes the same way."""

    def __init__(self):
        self.by_function: dict[str, list[tuple[set[str], str]]] = {}
        self.derived: dict[str, dict[str, set[str]]] = {}  # kernel -> name -> names its value uses
        self.definitions: dict[str, dict[str, cst.BaseExpression]] = {}  # kernel -> name -> its (first) value
        self.exact: dict[
            str, dict[str, list[tuple[str, str | None, set[str]]]]
        ] = {}  # kernel -> pointer -> [(mask, other, names)]
        self.terms: dict[str, list[cst.BaseExpression]] = {}  # kernel -> every mask expression
        self.order: dict[str, dict[str, int]] = {}  # kernel -> name -> the assignment (in source order) defining it
        self.assignments = 0
        self.current: list[str] = []
        self.loop_stops: dict[str, dict[str, str]] = {}  # kernel -> loop variable -> the stop of its range
        self.loops: dict[str, dict[str, tuple[str, str, str]]] = {}  # kernel -> loop var -> (start, stop, step)
        self.advances: dict[str, list[tuple[str, str, cst.BaseExpression]]] = {}  # kernel -> (loop var, ptr, step)
        self.params: dict[str, list[str]] = {}  # function -> its parameters, in order
        self.launches: list[tuple[str, cst.BaseExpression, list[cst.Arg], str]] = []  # kernel, grid, args, caller
        self.loop_stack: list[str] = []
        self.module_level: dict[str, cst.BaseExpression] = {}
        self.def_loops: dict[str, dict[str, tuple[str, ...]]] = {}  # kernel -> name -> loops around its definition

    def visit_FunctionDef(self, node):
        self.current.append(node.name.value)
        self.derived.setdefault(node.name.value, {})
        self.params.setdefault(node.name.value, [p.name.value for p in node.params.params])

    def visit_For(self, node):
        call = node.iter
        if (
            self.current
            and isinstance(node.target, cst.Name)
            and isinstance(call, cst.Call)
            and m.matches(call, m.Call(func=m.Name("range")))
        ):
            if 1 <= len(call.args) <= 3 and all(a.keyword is None for a in call.args):
                stop = call.args[0 if len(call.args) == 1 else 1].value
                self.loop_stops.setdefault(self.current[-1], {})[node.target.value] = _code(stop)
                codes = [_code(a.value) for a in call.args]
                start, step = (codes[0] if len(codes) > 1 else "0"), (codes[2] if len(codes) == 3 else "1")
                self.loops.setdefault(self.current[-1], {})[node.target.value] = (start, _code(stop), step)
        self.loop_stack.append(node.target.value if isinstance(node.target, cst.Name) else "")

    def leave_For(self, node):
        self.loop_stack.pop()

    def loop_bound(self, function: str, name: str) -> str | None:
        """The bound of `name = i + offs` (or `i + tl.arange(...)`) for i the variable of a
        `for i in range(start, stop, step)` loop and offs a tl.arange offset: stop."""
        value = self.definitions.get(function, {}).get(name)
        stops = self.loop_stops.get(function, {})
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add)):
            return None
        for loop, offsets in ((value.left, value.right), (value.right, value.left)):
            if isinstance(loop, cst.Name) and loop.value in stops:
                arange = m.matches(offsets, m.Call(func=_tl("arange")))
                if arange or (isinstance(offsets, cst.Name) and offsets.value in self.index_vars(function, offsets)):
                    return stops[loop.value]
        return None

    def leave_FunctionDef(self, node):
        self.current.pop()

    def visit_Assign(self, node):
        target = node.targets[0].target
        self.assignments += 1
        if not self.current and isinstance(target, cst.Name):
            self.module_level.setdefault(target.value, node.value)
        if self.current and isinstance(target, cst.Name):
            self.def_loops.setdefault(self.current[-1], {}).setdefault(target.value, tuple(self.loop_stack))
        if self.current and isinstance(target, cst.Name):
            self.derived[self.current[-1]].setdefault(target.value, set()).update(_names(node.value))
            self.definitions.setdefault(self.current[-1], {}).setdefault(target.value, node.value)
            self.order.setdefault(self.current[-1], {}).setdefault(target.value, self.assignments)

    def bounds(self, function: str) -> dict[tuple[str, str], str]:
        """(index variable, subscript) -> the bound its masks compare it with: `offs_m[:, None] < M`
        gives ("offs_m", "[:, None]") -> "M"; a mask variable is read through its definition."""
        found: dict[tuple[str, str], str] = {}
        definitions = self.definitions.get(function, {})

        def walk(expr, depth=0):
            if isinstance(expr, cst.Name) and expr.value in definitions and depth < 3:
                walk(definitions[expr.value], depth + 1)
            elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitAnd):
                walk(expr.left, depth)
                walk(expr.right, depth)
            elif (
                isinstance(expr, cst.Comparison)
                and len(expr.comparisons) == 1
                and isinstance(expr.comparisons[0].operator, cst.LessThan)
            ):
                left, bound = expr.left, _code(expr.comparisons[0].comparator)
                if isinstance(left, cst.Subscript) and isinstance(left.value, cst.Name):
                    found.setdefault((left.value.value, _code(left).removeprefix(left.value.value)), bound)
                    found.setdefault((left.value.value, "*"), bound)
                elif isinstance(left, cst.Name):
                    found.setdefault((left.value, ""), bound)
                    found.setdefault((left.value, "*"), bound)

        for mask in self.terms.get(function, []):
            walk(mask)
        return found

    def visit_AugAssign(self, node):  # X += row * stride
        if self.current and isinstance(node.target, cst.Name):
            self.derived[self.current[-1]].setdefault(node.target.value, set()).update(_names(node.value))
            if isinstance(node.operator, cst.AddAssign) and self.loop_stack and self.loop_stack[-1]:
                self.advances.setdefault(self.current[-1], []).append(
                    (self.loop_stack[-1], node.target.value, node.value)
                )

    def expand(self, function: str, names: set[str]) -> set[str]:
        """The names and, transitively, the names their kernel-local definitions use."""
        derived, seen, todo = self.derived.get(function, {}), set(), list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(derived.get(name, ()))
        return seen

    def visit_Call(self, node):
        if isinstance(node.func, cst.Subscript) and isinstance(node.func.value, cst.Name) and node.func.slice:
            grid = node.func.slice[0].slice
            if isinstance(grid, cst.Index):
                caller = self.current[-1] if self.current else ""
                self.launches.append((node.func.value.value, grid.value, list(node.args), caller))
        if self.current and m.matches(node.func, _tl("load") | _tl("store")) and node.args:
            mask = _kwarg(node, "mask")
            if mask is not None:
                names = _names(node.args[0].value)
                self.by_function.setdefault(self.current[-1], []).append((names, _code(mask.value)))
                other = _kwarg(node, "other")
                self.exact.setdefault(self.current[-1], {}).setdefault(_code(node.args[0].value), []).append(
                    (
                        _code(mask.value),
                        _code(other.value) if other is not None else None,
                        _names(mask.value),
                    )
                )
                self.terms.setdefault(self.current[-1], []).append(mask.value)

    def _grid_axes(self, grid: cst.BaseExpression | None, caller: str) -> list[cst.BaseExpression] | None:
        """The elements of a launch grid: a tuple, a lambda returning one, or a name assigned either."""
        for _ in range(3):
            if isinstance(grid, cst.Name):
                grid = self.definitions.get(caller, {}).get(grid.value) or self.module_level.get(grid.value)
            if isinstance(grid, cst.Lambda):
                grid = grid.body
            if isinstance(grid, cst.Tuple):
                return [e.value for e in grid.elements]
            if grid is None:
                return None
        return None

    def grid_bound(self, function: str, name: str) -> str | None:
        """The bound of a tile index `pid * BLOCK + tl.arange(...)` with pid = tl.program_id(axis):
        the extent the launch grid divides along that axis (triton.cdiv(X, ...)), as the kernel
        parameter every launch passes X to."""
        value = self.definitions.get(function, {}).get(name)
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add)):
            return None
        tile = next(
            (
                side
                for side, other in ((value.left, value.right), (value.right, value.left))
                if m.matches(other, m.Call(func=_tl("arange")))
            ),
            None,
        )
        if not (isinstance(tile, cst.BinaryOperation) and isinstance(tile.operator, cst.Multiply)):
            return None
        axis = None
        for factor in (tile.left, tile.right):
            if isinstance(factor, cst.Name):
                factor = self.definitions.get(function, {}).get(factor.value, factor)
            if isinstance(factor, cst.Call) and m.matches(factor, m.Call(func=_tl("program_id"))) and factor.args:
                axis = _code(factor.args[0].value)
        if axis is None or not axis.isdigit():
            return None
        params = self.params.get(function, [])
        found = set()
        for kernel, grid, args, caller in self.launches:
            if kernel != function:
                continue
            axes = self._grid_axes(grid, caller)
            if axes is None or int(axis) >= len(axes):
                return None
            extent = axes[int(axis)]
            if not (isinstance(extent, cst.Call) and m.matches(extent, m.Call(func=m.Attribute(attr=m.Name("cdiv"))))):
                return None
            if not extent.args:
                return None
            wanted = _code(extent.args[0].value)
            bound = None
            for i, arg in enumerate(args):
                if _code(arg.value) != wanted:
                    continue
                if arg.keyword is not None:
                    bound = arg.keyword.value
                elif i < len(params):
                    bound = params[i]
            if bound is None:
                return None
            found.add(bound)
        return found.pop() if len(found) == 1 else None

    def advance_bound(self, function: str, pointer_name: str, name: str, code: str) -> str | None:
        """The bound of an offset whose pointer steps through a loop: `ptrs += STEP * stride` in
        `for i in range(0, stop, STEP)` with `offs * stride` in the pointer -> `i + offs < stop`."""
        definition = self.definitions.get(function, {}).get(pointer_name)
        if definition is None:
            return None
        strides = set()
        for product in _find(definition, m.BinaryOperation(operator=m.Multiply()), cst.BinaryOperation):
            for side, other in ((product.left, product.right), (product.right, product.left)):
                if _names(side) & {name} and not (_names(other) & self.index_vars(function, other)):
                    strides.add(_code(other))
        sums = _find(definition, m.BinaryOperation(operator=m.Add()), cst.BinaryOperation)
        bare = any(code in (_code(add.left), _code(add.right)) for add in sums)  # a unit-stride offset
        loops = self.loops.get(function, {})
        for loop, pointer, step in self.advances.get(function, []):
            if pointer != pointer_name or loop not in loops:
                continue
            start, stop, loop_step = loops[loop]
            if start != "0":
                continue
            if isinstance(step, cst.BinaryOperation) and isinstance(step.operator, cst.Multiply):
                for size, stride in ((step.left, step.right), (step.right, step.left)):
                    if _code(size) == loop_step and _code(stride) in strides:
                        return f"{loop} + {code} < {stop}"
            elif bare and _code(step) == loop_step:
                return f"{loop} + {code} < {stop}"
        return None

    def conjuncts(self, function: str) -> list[tuple[cst.BaseExpression, str | None]]:
        """Every comparison the kernel's masks are a conjunction of, with the mask variable it
        was reached through (None: written in the access itself)."""
        definitions = self.definitions.get(function, {})
        found: list[tuple[cst.BaseExpression, str | None]] = []

        def walk(expr, via, depth=0):
            if isinstance(expr, cst.Name) and expr.value in definitions and depth < 3:
                walk(definitions[expr.value], expr.value, depth + 1)
            elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitAnd):
                walk(expr.left, None, depth)
                walk(expr.right, None, depth)
            elif isinstance(expr, cst.Comparison):
                found.append((expr, via))

        for mask in self.terms.get(function, []):
            walk(mask, None)
        return found

    def index_vars(self, function: str, expr) -> set[str]:
        """The kernel-local names defined from a tl.arange that `expr` is built from."""
        definitions = self.definitions.get(function, {})
        names = self.expand(function, _names(expr))
        return {n for n in names if n in definitions and m.findall(definitions[n], m.Call(func=_tl("arange")))}

    def defined_before(self, function: str, names: set[str], before: int) -> bool:
        """Every kernel-local name among `names` is first assigned before assignment `before`."""
        order = self.order.get(function, {})
        return all(order.get(name, 0) < before for name in names)

    def exact_sibling(self, function: str, pointer, before: int) -> tuple[str, str | None] | None:
        """(mask, other) of a masked access on the very same pointer whose mask is in scope here."""
        for mask, other, names in self.exact.get(function, {}).get(_code(pointer), []):
            if self.defined_before(function, names, before):
                return mask, other
        return None

    def mask_variable(self, function: str, pointer, before: int) -> str | None:
        """A kernel-local boolean (`mask = offs < n`, `valid = (pos >= 0) & (pos < L)`) over exactly
        the pointer's index variables, defined before the access (the latest such): a name defined
        only further down, in another loop, is not in scope there."""
        wanted = self.index_vars(function, pointer)
        if not wanted:
            return None
        order = self.order.get(function, {})
        direct = _names(pointer)
        if isinstance(pointer, cst.Name) and pointer.value in self.definitions.get(function, {}):
            direct |= _names(self.definitions[function][pointer.value])
        # the mask that compares the names the pointer itself is built from (`valid` on `pos`, not
        # `out_mask` on `offs`), then the one defined last before the access
        found = [
            (len(direct & _names(value)), order.get(name, 0), name)
            for name, value in self.definitions.get(function, {}).items()
            if order.get(name, 0) < before
            and m.findall(value, m.Comparison())
            and not m.findall(value, m.Call())
            and self.index_vars(function, value) == wanted
        ]
        return max(found)[2] if found else None

    def is_vector(self, function: str, pointer) -> bool:
        """Does the pointer index with a tl.arange (directly or through the kernel's names)? A
        scalar access (one element per program) needs no mask."""
        if m.findall(pointer, m.Call(func=_tl("arange"))):
            return True
        definitions = self.definitions.get(function, {})
        for name in self.expand(function, _names(pointer)):
            value = definitions.get(name)
            if value is not None and m.findall(value, m.Call(func=_tl("arange"))):
                return True
        return False

    def resolved(self) -> dict[str, list[tuple[set[str], str]]]:
        return {
            fn: [(self.expand(fn, names), mask) for names, mask in entries] for fn, entries in self.by_function.items()
        }


def _conjunct(mask: str) -> str:
    """`mask` ready to be and-ed with more terms: parenthesised unless a name, a call, a
    subscript, already parenthesised or itself a conjunction."""
    expr = cst.parse_expression(mask)
    plain = isinstance(expr, (cst.Name, cst.Call, cst.Subscript, cst.Attribute)) or bool(expr.lpar)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitAnd):
        plain = True
    return mask if plain else f"({mask})"


def _indexed(expr) -> list[tuple[str, str]]:
    """(name, code) of each offset an index expression uses: `offs_m[:, None]` for a subscripted
    offset, else every plain name."""
    subscripts = [
        (cst.ensure_type(sub.value, cst.Name).value, _code(sub))
        for sub in _find(expr, m.Subscript(value=m.Name()), cst.Subscript)
    ]
    if subscripts:
        return subscripts
    return [(n.value, n.value) for n in _find(expr, m.Name(), cst.Name)]


class _BoundaryMask(Transformer):
    """Floor-division launch grids -> triton.cdiv (assigned grids, lambda / meta[...] grids and
    inline kernel[(...)] grids); tl.load / tl.store without mask -> the mask of a sibling access
    that indexes the same way, else one built from the index variables their pointer uses
    (offs_m -> M, k -> K, ...); loads get other=0."""

    def __init__(self, siblings: _SiblingMasks, reduced: dict[str, str]):
        super().__init__()
        self.scan = siblings
        self.siblings = siblings.resolved()
        self.reduced = reduced  # name -> the identity of the reduction it feeds (max: -inf, min: +inf)
        self.params: list[list[str]] = []
        self.functions: list[str] = []
        self.grid_depth = 0
        self.assigning: str | None = None
        self.assignments = 0
        self.loops: list[str] = []  # the variables of the loops enclosing the access

    def visit_FunctionDef(self, node):
        self.params.append([p.name.value for p in node.params.params])
        self.functions.append(node.name.value)

    def visit_For(self, node):
        self.loops.append(node.target.value if isinstance(node.target, cst.Name) else "")

    def leave_For(self, original, updated):
        self.loops.pop()
        return updated

    def _in_scope(self, function: str, names: set[str]) -> bool:
        """Are these names usable here: kernel-local ones assigned before this access, and loop
        variables only of the loops enclosing it."""
        loop_vars = set(self.scan.loops.get(function, {})) | set(self.scan.loop_stops.get(function, {}))
        if (names & loop_vars) - set(self.loops):
            return False
        around = self.scan.def_loops.get(function, {})
        if any(tuple(self.loops[: len(around[n])]) != around[n] for n in names if n in around):
            return False  # assigned inside a loop this access is not in
        return self.scan.defined_before(function, names, self.assignments + 1)

    def leave_FunctionDef(self, original, updated):
        self.params.pop()
        self.functions.pop()
        return updated

    @staticmethod
    def _is_grid_assign(node) -> bool:
        target = node.targets[0].target
        return isinstance(target, cst.Name) and "grid" in target.value

    @staticmethod
    def _is_launch(node) -> bool:
        """kernel[(M // BLOCK_M, ...)] or kernel[grid_expression]: a subscript of a name by a tuple."""
        return (
            isinstance(node.value, cst.Name)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Tuple)
        )

    def visit_Assign(self, node):
        self.assignments += 1  # counted in the same order as _SiblingMasks counts definitions
        if self._is_grid_assign(node):
            self.grid_depth += 1
        target = node.targets[0].target
        self.assigning = target.value if isinstance(target, cst.Name) else None

    def leave_Assign(self, original, updated):
        if self._is_grid_assign(original):
            self.grid_depth -= 1
        self.assigning = None
        return updated

    def visit_Subscript(self, node):
        if self._is_launch(node):
            self.grid_depth += 1

    def leave_Subscript(self, original, updated):
        if self._is_launch(original):
            self.grid_depth -= 1
        return updated

    def leave_BinaryOperation(self, original, updated):
        if isinstance(updated.operator, cst.FloorDivide) and self.grid_depth > 0:
            self.changed = True
            return cst.parse_expression(f"triton.cdiv({_code(updated.left)}, {_code(updated.right)})")
        return updated

    def _bound(self, name: str) -> str | None:
        params = self.params[-1] if self.params else []
        candidates = [name] + [name[len(p) :] for p in _PREFIXES if name.startswith(p)]
        if len(name) == 2 and name[0] == "r":
            candidates.append(name[1])
        if name == "k" or name.endswith("_k"):
            candidates.append("k")
        for c in candidates:
            for bound in (c.upper(), c, f"n_{c}", f"{c}_size"):
                if bound in params and bound != name:
                    return bound
        return None

    def _sibling_mask(self, pointer) -> str | None:
        if not self.functions:
            return None
        names = self.scan.expand(self.functions[-1], _names(pointer))
        params = set(self.params[-1]) if self.params else set()
        names -= params  # shared base pointers and strides say nothing about the indexing
        known = [(n - params, mask) for n, mask in self.siblings.get(self.functions[-1], [])]
        best = max(known, key=lambda entry: len(entry[0] & names), default=None)
        return best[1] if best is not None and best[0] & names else None

    def _term_mask(self, pointer) -> str | None:
        """The mask rebuilt per index variable from the bounds sibling masks use for it: each
        subscripted index (offs_m[:, None]) or plain offset name in the pointer, followed through
        the kernel's own definition of the pointer, needs a known bound."""
        function = self.functions[-1]
        bounds = self.scan.bounds(function)
        definitions = self.scan.definitions.get(function, {})
        expr = pointer
        if isinstance(expr, cst.Name) and expr.value in definitions:
            expr = definitions[expr.value]
        terms = []
        subscripts = _find(expr, m.Subscript(value=m.Name()), cst.Subscript)
        for sub in subscripts:
            name = cst.ensure_type(sub.value, cst.Name).value
            index = _code(sub).removeprefix(name)
            bound = bounds.get((name, index)) or bounds.get((name, "*"))
            if bound is not None:  # the other dimensions are left to _missing_bounds
                terms.append(f"({_code(sub)} < {bound})")
        if not subscripts:
            names = [n.value for n in _find(expr, m.Name(), cst.Name) if (n.value, "*") in bounds]
            terms = [f"({n} < {bounds.get((n, '')) or bounds[(n, '*')]})" for n in dict.fromkeys(names)]
        return " & ".join(dict.fromkeys(terms)) if terms else None

    def _mask_for(self, pointer) -> tuple[str | None, str | None]:
        """(mask, other): a sibling's on the very same pointer, else rebuilt from the bounds
        sibling masks use per index variable, else a whole sibling mask, else from names."""
        if self.functions:
            function = self.functions[-1]
            exact = self.scan.exact_sibling(function, pointer, self.assignments + 1)
            if exact is not None and self._in_scope(function, _names(cst.parse_expression(exact[0]))):
                return exact
            variable = self.scan.mask_variable(function, pointer, self.assignments + 1)
            if variable is not None and self._in_scope(function, {variable}):
                return variable, None
            rebuilt = self._term_mask(pointer)
            if rebuilt is not None:
                return rebuilt, None
        return self._named_mask(pointer), None

    def _named_mask(self, pointer) -> str | None:
        sibling = self._sibling_mask(pointer)
        if sibling is not None:
            return sibling
        terms, seen = [], set()
        for sub in _find(pointer, m.Subscript(value=m.Name()), cst.Subscript):
            name = cst.ensure_type(sub.value, cst.Name).value
            bound = self._bound(name)
            if bound is None or name in seen:
                continue
            seen.add(name)
            terms.append(f"({_code(sub)} < {bound})")
        if not terms:
            names = _names(pointer)
            params = self.params[-1] if self.params else []
            for name in sorted(names):
                if name in params or name.endswith(("ptr", "ptrs")):
                    continue
                bound = self._bound(name) or next((b for b in _ONE_D_BOUNDS if b in params), None)
                if bound and name.startswith(("off", "idx", "i", "col", "row")):
                    terms.append(f"({name} < {bound})")
                    break
        return " & ".join(terms) if terms else None

    def _missing_bounds(self, pointer, mask) -> str | None:
        """The terms a mask (None: no mask) lacks: for each tl.arange offset the pointer is built
        from and the mask never compares, the bound of that dimension (see _dimension_bound).
        Offsets no bound is found for are left out; None when nothing is missing or found."""
        function = self.functions[-1]
        missing = self.scan.index_vars(function, pointer)
        if mask is not None:
            missing -= self.scan.index_vars(function, mask)
        if not missing:
            return None
        definitions = self.scan.definitions.get(function, {})
        expr = pointer
        if isinstance(expr, cst.Name) and expr.value in definitions:
            expr = definitions[expr.value]
        indexed = _indexed(expr)
        terms = []
        for name, code in dict.fromkeys(indexed):
            carried = self.scan.index_vars(function, cst.Name(name)) & missing
            if not carried:
                continue
            term = self._dimension_bound(function, pointer, expr, name, code)
            if term is None:
                continue
            terms.append(term)
            missing -= carried
        return " & ".join(dict.fromkeys(terms)) if terms else None

    def _dimension_bound(self, function: str, pointer, expr, name: str, code: str) -> str | None:
        """`(code < bound)` for one offset of a pointer: the bound sibling masks compare it with,
        else the stop of the loop it steps through (k = k0 + offs_k), else a comparison of a
        sibling mask over this offset (m + offs_k < K, in scope here), else the extent the launch
        grid divides along its program axis, else the stop of the loop its pointer advances in."""
        bounds = self.scan.bounds(function)
        bound = (
            bounds.get((name, code.removeprefix(name)))
            or bounds.get((name, "*"))
            or self.scan.loop_bound(function, name)
        )
        if bound is not None:
            return f"({code} < {bound})"
        wanted = self.scan.index_vars(function, pointer)
        pairs = {pair for pair in _indexed(expr) if pair[0] in wanted}
        for comparison, via in self.scan.conjuncts(function):
            used = self.scan.index_vars(function, comparison)
            shaped = {pair for pair in _indexed(comparison) if pair[0] in used}  # same broadcast as here
            if name not in used or not used <= wanted or not shaped <= pairs:
                continue
            if not self._in_scope(function, _names(comparison)):
                continue
            if via is not None and self._in_scope(function, {via}):
                return via
            return f"({_code(comparison)})"
        bound = self.scan.grid_bound(function, name)
        if bound is not None:
            return f"({code} < {bound})"
        if isinstance(pointer, cst.Name):
            advanced = self.scan.advance_bound(function, pointer.value, name, code)
            if advanced is not None and self._in_scope(function, _names(cst.parse_expression(advanced))):
                return f"({advanced})"
        return None

    def _completed(self, call: cst.Call) -> cst.Call:
        """A masked access whose mask lacks the bound of one of its dimensions, with that bound added."""
        mask = _kwarg(call, "mask")
        if not self.functions or not call.args or mask is None:
            return call
        extra = self._missing_bounds(call.args[0].value, mask.value)
        if extra is None:
            return call
        self.changed = True
        completed = mask.with_changes(value=cst.parse_expression(f"{_conjunct(_code(mask.value))} & {extra}"))
        return call.with_changes(args=[completed if arg is mask else arg for arg in call.args])

    def _neutral_padding(self, load: cst.Call) -> cst.Call:
        """A masked load padded with a constant that can win the max / min its value feeds
        (other=0.0 before a running max) -> padded with that reduction's identity."""
        other, identity = _kwarg(load, "other"), self.reduced.get(self.assigning or "")
        constant = isinstance(other.value, (cst.Float, cst.Integer, cst.UnaryOperation)) if other else False
        if other is None or identity is None or not constant or _code(other.value) == identity:
            return load
        self.changed = True
        return _with_kwarg(load, "other", cst.parse_expression(identity))

    def leave_Call(self, original, updated):
        is_load = m.matches(updated.func, _tl("load"))
        is_store = m.matches(updated.func, _tl("store"))
        if (is_load or is_store) and _kwarg(updated, "mask") is not None:
            completed = self._completed(updated)
            return self._neutral_padding(completed) if is_load else completed
        if not (is_load or is_store) or len(updated.args) > (1 if is_load else 2):
            return updated
        if not self.functions or not self.scan.is_vector(self.functions[-1], updated.args[0].value):
            return updated
        pointer, function = updated.args[0].value, self.functions[-1]
        mask, other = self._mask_for(pointer)
        if mask is not None and not (
            self.scan.index_vars(function, cst.parse_expression(mask)) <= self.scan.index_vars(function, pointer)
        ):
            mask, other = None, None  # a sibling's mask over a dimension this access does not have
        # every dimension of the pointer bounded: the mask found may cover only some of them
        extra = self._missing_bounds(updated.args[0].value, cst.parse_expression(mask) if mask else None)
        if extra is not None:
            mask = f"{_conjunct(mask)} & {extra}" if mask else extra
        if mask is None:
            return updated
        self.changed = True
        call = _with_kwarg(updated, "mask", cst.parse_expression(mask))
        if not is_load or _kwarg(updated, "other") is not None:
            return call
        # masked lanes must not win a max / min the value feeds: the reduction's identity, else 0
        other = other or self.reduced.get(self.assigning or "", "0.0")
        return _with_kwarg(call, "other", cst.parse_expression(other))


_IDENTITIES = {"max": '-float("inf")', "min": 'float("inf")'}


def _reduction_identities(source: str) -> dict[str, str]:
    """Names whose masked lanes must not win the max / min they feed -> that reduction's identity."""
    try:
        return {name: _IDENTITIES[kind] for name, kind in source_facts.extreme_operands(pyast.parse(source)).items()}
    except SyntaxError:
        return {}


def boundary_mask(source: str) -> str | None:
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    siblings = _SiblingMasks()
    tree.visit(siblings)
    transformer = _BoundaryMask(siblings, _reduction_identities(source))
    new = tree.visit(transformer)
    return new.code if transformer.changed and new.code != source else None


# --- forward-level rewrites ----------------------------------------------------------------------


class _Rename(cst.CSTTransformer):
    """Every use of the names in `names` (not attribute names) -> its new name."""

    def __init__(self, names: dict[str, str]):
        super().__init__()
        self.names = names

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Name(self, original, updated):
        return cst.Name(self.names[updated.value]) if updated.value in self.names else updated


class _FreshOutput(Transformer):
    """`kernel[grid](x, x, ...)` writing into its input -> a fresh `_out_x = torch.empty_like(x)`
    passed as the destination, for every input passed twice; the statements after the launch read
    `_out_x` (what the kernel wrote) instead of `x`. `out = x` (an input of the forward) ->
    `out = torch.empty_like(x)`."""

    def __init__(self):
        super().__init__()
        self.params: list[set[str]] = []
        self.launches: dict[int, dict[str, str]] = {}  # id of a redirected launch -> input -> its fresh output

    def visit_FunctionDef(self, node):
        self.params.append({p.name.value for p in node.params.params})

    def leave_FunctionDef(self, original, updated):
        self.params.pop()
        return updated

    def leave_Assign(self, original, updated):
        target, value = updated.targets[0].target, updated.value
        if (
            self.params
            and isinstance(target, cst.Name)
            and isinstance(value, cst.Name)
            and value.value in self.params[-1]
            and target.value != value.value
            and value.value != "self"
        ):
            self.changed = True
            return updated.with_changes(value=cst.parse_expression(f"torch.empty_like({value.value})"))
        return updated

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        call = stmt.value if isinstance(stmt, cst.Expr) else None
        if not (isinstance(stmt, cst.Expr) and isinstance(call, cst.Call) and isinstance(call.func, cst.Subscript)):
            return updated
        names = [a.value.value for a in call.args if a.keyword is None and isinstance(a.value, cst.Name)]
        fresh = {n: f"_out_{n}" for n in dict.fromkeys(names) if names.count(n) > 1}
        if not fresh:
            return updated
        seen: dict[str, int] = {}
        args = []
        for a in call.args:
            name = a.value.value if a.keyword is None and isinstance(a.value, cst.Name) else None
            if name in fresh:
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:
                    a = a.with_changes(value=cst.Name(fresh[name]))
            args.append(a)
        assert stmt is not None  # call came from it
        launch = updated.with_changes(body=[stmt.with_changes(value=call.with_changes(args=args))])
        self.launches[id(launch)] = fresh
        self.changed = True
        return cst.FlattenSentinel(
            [*(cst.parse_statement(f"{out} = torch.empty_like({n})") for n, out in fresh.items()), launch]
        )

    def leave_IndentedBlock(self, original, updated):
        body, renamed = list(updated.body), {}
        for i, statement in enumerate(body):
            if renamed:
                body[i] = statement.visit(_Rename(renamed))
            renamed = {**renamed, **self.launches.get(id(statement), {})}
        return updated.with_changes(body=body) if renamed else updated


class _WrittenParams(_NameFlow):
    """Per @triton.jit kernel: its parameters in order, and those it writes through (the base of a
    tl.store / atomic pointer, followed through the kernel's assignments)."""

    def __init__(self):
        super().__init__()
        self.params: dict[str, list[str]] = {}
        self.written: dict[str, set[str]] = {}
        self.stored: dict[str, set[str]] = {}

    def visit_FunctionDef(self, node):
        super().visit_FunctionDef(node)
        if any(any(k in _code(d.decorator) for k in ("jit", "autotune", "heuristics")) for d in node.decorators):
            self.params[node.name.value] = [p.name.value for p in node.params.params]

    def leave_FunctionDef(self, node):
        name = self.current[-1]
        super().leave_FunctionDef(node)
        if name in self.params:
            self.written[name] = self.closure(name, self.stored.get(name, ())) & set(self.params[name])

    def visit_Call(self, node):
        writes = _tl("store") | _tl("atomic_add") | _tl("atomic_xchg") | _tl("atomic_max") | _tl("atomic_min")
        if self.current and node.args and m.matches(node.func, writes):
            self.stored.setdefault(self.current[-1], set()).update(_names(node.args[0].value))


def _view_root(expr) -> str | None:
    """The name a view-like expression is rooted at (x, x.contiguous().view(-1), x[0], x.T), or
    None for anything that allocates (torch.empty_like(x), x.clone())."""
    while True:
        if isinstance(expr, cst.Name):
            return expr.value
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value in ("clone", "copy_", "new_empty", "new_zeros", "to", "float", "half"):
                return None
            expr = expr.func.value
        elif isinstance(expr, (cst.Attribute, cst.Subscript)):
            expr = expr.value
        else:
            return None


class _CopyWrittenInputs(Transformer):
    """A launch that binds an input of the forward (or a view of one) to a kernel parameter the
    kernel stores through -> `_in_x = x.clone()` passed instead, and the statements after the
    launch read `_in_x`: the kernel reads the same values and its writes land in the copy, so
    the forward computes what it computed before and its caller's tensors stay as they were."""

    def __init__(self, kernels: _WrittenParams):
        super().__init__()
        self.kernels = kernels
        self.inputs: list[set[str]] = []  # per forward: names bound to its inputs (or views of them)
        self.launches: dict[int, dict[str, str]] = {}

    def visit_FunctionDef(self, node):
        params = {p.name.value for p in node.params.params} - {"self"}
        self.inputs.append(set() if node.name.value in self.kernels.params else params)

    def leave_FunctionDef(self, original, updated):
        self.inputs.pop()
        return updated

    def visit_Assign(self, node):
        target = node.targets[0].target
        if self.inputs and isinstance(target, cst.Name):
            root = _view_root(node.value)
            if root is not None and root in self.inputs[-1]:
                self.inputs[-1].add(target.value)
            else:
                self.inputs[-1].discard(target.value)

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        call = stmt.value if isinstance(stmt, cst.Expr) else None
        if not (
            self.inputs
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Subscript)
            and isinstance(call.func.value, cst.Name)
            and call.func.value.value in self.kernels.params
        ):
            return updated
        kernel = call.func.value.value
        params, written = self.kernels.params[kernel], self.kernels.written.get(kernel, set())
        fresh: dict[str, str] = {}
        args = []
        for i, arg in enumerate(call.args):
            param = arg.keyword.value if arg.keyword is not None else params[i] if i < len(params) else None
            value = arg.value
            if param in written and isinstance(value, cst.Name) and value.value in self.inputs[-1]:
                copy = fresh.setdefault(value.value, f"_in_{value.value}")
                arg = arg.with_changes(value=cst.Name(copy))
            args.append(arg)
        if not fresh:
            return updated
        self.changed = True
        assert stmt is not None  # call came from it
        launch = updated.with_changes(body=[stmt.with_changes(value=call.with_changes(args=args))])
        self.launches[id(launch)] = fresh
        copies = [cst.parse_statement(f"{copy} = {name}.clone()") for name, copy in fresh.items()]
        return cst.FlattenSentinel([*copies, launch])

    def leave_IndentedBlock(self, original, updated):
        body, renamed = list(updated.body), {}
        for i, statement in enumerate(body):
            if renamed:
                body[i] = statement.visit(_Rename(renamed))
            renamed = {**renamed, **self.launches.get(id(statement), {})}
        return updated.with_changes(body=body) if renamed else updated


def copy_written_inputs(source: str) -> str | None:
    tree = parse(source)
    if tree is None:
        return None
    kernels = _WrittenParams()
    tree.visit(kernels)
    return run(source, _CopyWrittenInputs(kernels))


MAX_SWAPPED_DIM = 4


def stride_pairs(args, first: int, second: int) -> list[int]:
    """Positions i where args[i], args[i + 1] are `t.stride(first), t.stride(second)` of one t."""
    codes = [_code(a.value) for a in args]
    tail_a, tail_b = f".stride({first})", f".stride({second})"
    return [
        i
        for i in range(len(codes) - 1)
        if codes[i].endswith(tail_a)
        and codes[i + 1].endswith(tail_b)
        and codes[i][: -len(tail_a)] == codes[i + 1][: -len(tail_b)]
    ]


def swap_args(args, i: int) -> list:
    args = list(args)
    args[i], args[i + 1] = args[i].with_changes(value=args[i + 1].value), args[i + 1].with_changes(value=args[i].value)
    return args


class _SwapStrides(Transformer):
    """`t.stride(d + 1), t.stride(d)` passed in that order -> `t.stride(d), t.stride(d + 1)`
    (`t.stride(2), t.stride(1)`: the last two dimensions of a batched 3-D tensor)."""

    def leave_Call(self, original, updated):
        args = list(updated.args)
        for d in range(MAX_SWAPPED_DIM):
            for i in stride_pairs(args, d + 1, d):
                args = swap_args(args, i)
                self.changed = True
        return updated.with_changes(args=args)


class _ZerosOutput(Transformer):
    def leave_Call(self, original, updated):
        if m.matches(updated.func, m.Attribute(value=m.Name("torch"), attr=m.Name("empty") | m.Name("empty_like"))):
            self.changed = True
            name = "zeros" if m.matches(updated.func.attr, m.Name("empty")) else "zeros_like"
            return updated.with_changes(func=updated.func.with_changes(attr=cst.Name(name)))
        return updated


def ieee_dot(source: str) -> str | None:
    return run(source, _IeeeDot())


def round_to_nearest(source: str) -> str | None:
    return run(source, _RoundNearest())


def max_subtraction(source: str) -> str | None:
    return run(source, _MaxSubtraction())


def nan_propagation(source: str) -> str | None:
    return run(source, _NanPropagation())


def fresh_output(source: str) -> str | None:
    return run(source, _FreshOutput())


def swap_strides(source: str) -> str | None:
    return run(source, _SwapStrides())


def zeros_output(source: str) -> str | None:
    return run(source, _ZerosOutput())
