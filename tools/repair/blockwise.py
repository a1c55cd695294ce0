"""max_subtraction for exp summed over column blocks (log-sum-exp, softmax denominators streamed
through a `for` loop): each block's own max would be subtracted from a different block, so the
sum is wrong. The patch adds a first pass over the same blocks for the row max, subtracts that
one max in every exp of the same expression and adds it back to the log of the sum."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tools.repair import patches
from tools.repair.patches import _code, _find, _names, _tl

ROW_MAX = "_row_max"


def _exp_args(node: cst.CSTNode) -> list[cst.BaseExpression]:
    return [c.args[0].value for c in _find(node, m.Call(func=_tl("exp")), cst.Call) if c.args]


def _accumulation(statement, defined_before: set[str]) -> tuple[str, cst.BaseExpression] | None:
    """(acc, e) when `statement` is `acc += ...tl.exp(e)...` or `acc = acc + ...tl.exp(e)...` with
    acc defined before the loop."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign):
        target, value = small.target, small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.BinaryOperation):
        target, value = small.targets[0].target, small.value
        if not (isinstance(value.operator, cst.Add) and _code(value.left) == _code(target)):
            return None
    else:
        return None
    args = _exp_args(value)
    if isinstance(target, cst.Name) and target.value in defined_before and len(args) == 1:
        return target.value, args[0]
    return None


def _assigned(statement) -> tuple[str | None, bool]:
    """(the name a one-target assignment defines, whether the statement is an augmented assignment)."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, False
    return None, isinstance(small, cst.AugAssign)


def _slice(body: list, upto: int, names: set[str], outer: set[str]) -> list | None:
    """The statements of body[:upto] that `names` depend on, in order; None when one of them is
    loop-carried (updated in place, or also defined before the loop) or not a plain assignment."""
    needed, kept = set(names), []
    for statement in reversed(body[:upto]):
        target, augmented = _assigned(statement)
        if augmented and _names(statement) & needed:
            return None
        if target is None or target not in needed:
            continue
        if target in outer or _find(statement, m.Call(func=_tl("store") | _tl("atomic_add")), cst.Call):
            return None
        kept.insert(0, statement)
        needed |= _names(statement.body[0].value)
    return kept


def _one_dimensional(function: cst.FunctionDef) -> bool:
    """Every tl.zeros / tl.full shape has one dimension and every reduction is over axis 0."""
    for call in _find(function, m.Call(func=_tl("zeros") | _tl("full")), cst.Call):
        shape = call.args[0].value if call.args else None
        if isinstance(shape, (cst.Tuple, cst.List)) and len(shape.elements) != 1:
            return False
    for call in _find(function, m.Call(func=_tl("sum") | _tl("max")), cst.Call):
        axis = patches._kwarg(call, "axis")
        axis = axis.value if axis is not None else (call.args[1].value if len(call.args) > 1 else None)
        if axis is not None and _code(axis) != "0":
            return False
    return True


class _ShiftExp(cst.CSTTransformer):
    """tl.exp(e) -> tl.exp(e - _row_max); tl.log(...acc...) -> _row_max + tl.log(...acc...)."""

    def __init__(self, e: str, acc: str):
        super().__init__()
        self.e, self.acc = e, acc

    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("exp")) and updated.args and _code(updated.args[0].value) == self.e:
            e = updated.args[0].value
            simple = isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
            shifted = cst.parse_expression(f"{self.e} - {ROW_MAX}" if simple else f"({self.e}) - {ROW_MAX}")
            return updated.with_changes(args=[updated.args[0].with_changes(value=shifted)])
        if m.matches(updated.func, _tl("log")) and self.acc in _names(updated):
            return cst.parse_expression(f"({ROW_MAX} + {_code(updated)})")
        return updated


def _blockwise_loop(function: cst.FunctionDef):
    """(index of the loop in the body, acc, e, the statements e depends on) of the first top-level
    `for` that sums exp(e) into an accumulator, or None; the slice is None when it cannot be copied."""
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    defined: set[str] = {p.name.value for p in function.params.params}
    for i, statement in enumerate(function.body.body):
        if isinstance(statement, cst.For) and isinstance(statement.body, cst.IndentedBlock):
            body = list(statement.body.body)
            for j, inner in enumerate(body):
                found = _accumulation(inner, defined)
                if found is not None:
                    acc, e = found
                    return i, acc, e, _slice(body, j, _names(e) - defined, defined)
        for target in _find(statement, m.AssignTarget(target=m.Name()), cst.AssignTarget):
            if isinstance(target.target, cst.Name):
                defined.add(target.target.value)
    return None


class _BlockwiseMax(patches.Transformer):
    def leave_FunctionDef(self, original, updated):
        if _find(updated, m.Call(func=_tl("max")), cst.Call) or not _one_dimensional(updated):
            return updated
        found = _blockwise_loop(updated)
        if found is None or found[3] is None:
            return updated
        i, acc, e, sliced = found
        loop = updated.body.body[i]
        assert sliced is not None and isinstance(loop, cst.For) and isinstance(loop.body, cst.IndentedBlock)
        running = cst.parse_statement(f"{ROW_MAX} = tl.maximum({ROW_MAX}, tl.max({_code(e)}, axis=0))")
        first_pass = loop.with_changes(body=loop.body.with_changes(body=[*sliced, running]))
        rest = [s.visit(_ShiftExp(_code(e), acc)) for s in updated.body.body[i:]]
        body = [*updated.body.body[:i], cst.parse_statement(f'{ROW_MAX} = float("-inf")'), first_pass, *rest]
        self.changed = True
        return updated.with_changes(body=updated.body.with_changes(body=body))


def blockwise_max_subtraction(source: str) -> str | None:
    return patches.run(source, _BlockwiseMax())


def single_block_max_subtraction(source: str) -> str | None:
    """The single-block patch, only where no kernel sums exp over a loop of blocks (subtracting
    each block's own max there is wrong)."""
    tree = patches.parse(source)
    if tree is None:
        return None
    if any(_blockwise_loop(f) for f in _find(tree, m.FunctionDef(), cst.FunctionDef)):
        return None
    return patches.max_subtraction(source)
