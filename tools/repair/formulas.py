"""Patches that change a formula to a numerically stable one: log1p, expm1, two-pass variance
(summed at once or streamed over column blocks), eps inside the square root, rounding before a
float -> integer cast. Each returns the patched source, or None when its construct is absent.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tools.repair import edits
from tools.repair.patches import Transformer, _code, _find, _kwarg, _names, _tl, parse, run, two_pass_variance

ONE = m.Integer("1") | m.Float("1.0") | m.Float("1.")
INTEGER_TYPES = ("int8", "int16", "int32", "uint8", "uint16", "uint32")
#: 1.5 * 2**23: adding and subtracting it rounds an fp32 value to an integer, half to even, for
#: |x| < 2**22 (the FPU's own rounding does the work; no libdevice needed, interpreter included).
ROUND_MAGIC = "12582912.0"


class _Log1p(Transformer):
    """tl.log(1 + x) -> Goldberg's log1p, accurate for tiny x (u = 1 + x; log(u) * x / (u - 1))."""

    def leave_Call(self, original, updated):
        if (
            m.matches(updated.func, _tl("log"))
            and updated.args
            and isinstance(updated.args[0].value, cst.BinaryOperation)
        ):
            expr = updated.args[0].value
            if isinstance(expr.operator, cst.Add):
                x = expr.right if m.matches(expr.left, ONE) else expr.left if m.matches(expr.right, ONE) else None
                if x is not None:
                    self.changed = True
                    xs = _code(x)
                    return cst.parse_expression(
                        f"tl.where((1.0 + {xs}) == 1.0, {xs}, tl.log(1.0 + {xs}) * (({xs}) / ((1.0 + {xs}) - 1.0)))"
                    )
        return updated


class _Expm1(Transformer):
    """tl.exp(x) - 1 -> Kahan's expm1 (u = exp(x); (u - 1) * x / log(u)), accurate for tiny x."""

    def leave_BinaryOperation(self, original, updated):
        if (
            isinstance(updated.operator, cst.Subtract)
            and m.matches(updated.right, ONE)
            and m.matches(updated.left, m.Call(func=_tl("exp")))
            and updated.left.args
        ):
            xs = _code(updated.left.args[0].value)
            self.changed = True
            return cst.parse_expression(
                f"tl.where(tl.exp({xs}) == 1.0, {xs}, (tl.exp({xs}) - 1.0) * (({xs}) / tl.log(tl.exp({xs}))))"
            )
        return updated


class _EpsInsideSqrt(Transformer):
    """tl.sqrt(v) + eps -> tl.sqrt(v + eps) (the usual definition of norms and Adam-style updates)."""

    def leave_BinaryOperation(self, original, updated):
        if not isinstance(updated.operator, cst.Add):
            return updated
        for root, other in ((updated.left, updated.right), (updated.right, updated.left)):
            if (
                m.matches(root, m.Call(func=m.Attribute(attr=m.Name("sqrt")) | m.Name("sqrt")))
                and root.args
                and "eps" in _code(other).lower()
            ):
                self.changed = True
                inner = f"{_code(root.args[0].value)} + {_code(other)}"
                return root.with_changes(args=[root.args[0].with_changes(value=cst.parse_expression(inner))])
        return updated


class _RoundBeforeIntCast(Transformer):
    """x.to(tl.int8) of a float -> rounded half to even first, as torch.round does."""

    def leave_Call(self, original, updated):
        if not m.matches(updated.func, m.Attribute(attr=m.Name("to"))) or not updated.args:
            return updated
        target = updated.args[0].value
        if not (isinstance(target, cst.Attribute) and target.attr.value in INTEGER_TYPES):
            return updated
        value = updated.func.value
        code = _code(value)
        rounding_calls = m.findall(
            value,
            m.Call(
                func=m.Attribute(attr=m.Name("rint") | m.Name("round") | m.Name("nearbyint"))
                | m.Name("rint")
                | m.Name("round")
            ),
        )
        if ROUND_MAGIC in code or rounding_calls:
            return updated
        self.changed = True
        rounded = cst.parse_expression(
            f"tl.where(tl.abs({code}) < 4194304.0, (({code}) + {ROUND_MAGIC}) - {ROUND_MAGIC}, {code})"
        )
        return updated.with_changes(func=updated.func.with_changes(value=rounded))


# --- streaming one-pass variance -> two passes ------------------------------------------------------------


def _square_of(node) -> str | None:
    if (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Multiply)
        and _code(node.left) == _code(node.right)
        and isinstance(node.left, cst.Name)
    ):
        return node.left.value
    return None


def _streamed_sums(loop: cst.For) -> tuple[str, str, str] | None:
    """(x, sum name, sum-of-squares name) of a loop doing `s += x` and `q += x * x`."""
    plain, squares = {}, {}
    for stmt in _find(loop.body, m.AugAssign(operator=m.AddAssign(), target=m.Name()), cst.AugAssign):
        total = cst.ensure_type(stmt.target, cst.Name).value
        x = _square_of(stmt.value)
        if x is not None:
            squares[x] = total
        elif isinstance(stmt.value, cst.Name):
            plain[stmt.value.value] = total
    common = [x for x in squares if x in plain]
    return (common[0], plain[common[0]], squares[common[0]]) if common else None


class _CentreSecondLoop(cst.CSTTransformer):
    """The second pass: drop `s += x`, centre x right after it is loaded, keep `q += x * x`. The
    lanes outside the mask of that load (the one in this loop: a mask of another loop may be
    defined only there) are zeroed, so the tail adds no (0 - mean)^2."""

    def __init__(self, x: str, total: str, mean: str):
        self.x, self.total, self.mean = x, total, mean

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        if isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name) and stmt.target.value == self.total:
            return cst.RemoveFromParent()
        if (
            isinstance(stmt, cst.Assign)
            and isinstance(stmt.targets[0].target, cst.Name)
            and stmt.targets[0].target.value == self.x
        ):
            loads = _find(stmt.value, m.Call(func=_tl("load")), cst.Call)
            mask = _kwarg(loads[0], "mask") if len(loads) == 1 else None
            centred = f"{self.x} - {self.mean}"
            if mask is not None:
                centred = f"tl.where({_code(mask.value)}, {centred}, 0.0)"
            return cst.FlattenSentinel([updated, cst.parse_statement(f"{self.x} = {centred}")])
        return updated


class _DropFirstPassSquares(cst.CSTTransformer):
    def __init__(self, squares: str):
        self.squares = squares

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        if isinstance(stmt, cst.AugAssign) and isinstance(stmt.target, cst.Name) and stmt.target.value == self.squares:
            return cst.RemoveFromParent()
        return updated


class _DropMeanSquared(cst.CSTTransformer):
    """`E[q] - mean * mean` -> `E[q]`, for expressions that read the squares accumulator."""

    def __init__(self, squares: set[str], mean: str):
        self.squares, self.mean, self.changed = squares, mean, False

    def leave_BinaryOperation(self, original, updated):
        if (
            isinstance(updated.operator, cst.Subtract)
            and _square_of(updated.right) == self.mean
            and _names(updated.left) & self.squares
        ):
            self.changed = True
            return updated.left
        return updated


class _StreamedVariance(Transformer):
    """In a kernel body: the loop accumulating x and x * x becomes two loops, the second over
    centred x; the `- mean * mean` term goes."""

    def leave_FunctionDef(self, original, updated):
        body = list(updated.body.body)
        for i, loop in enumerate(body):
            found = _streamed_sums(loop) if isinstance(loop, cst.For) else None
            if found is None:
                continue
            x, total, squares = found
            mean_at = next(
                (
                    j
                    for j in range(i + 1, len(body))
                    if isinstance(body[j], cst.SimpleStatementLine)
                    and isinstance(body[j].body[0], cst.Assign)
                    and total in _names(body[j].body[0].value)
                    and squares not in _names(body[j].body[0].value)
                ),
                None,
            )
            if mean_at is None:
                continue
            mean = body[mean_at].body[0].targets[0].target
            if not isinstance(mean, cst.Name):
                continue
            second = loop.visit(_CentreSecondLoop(x, total, mean.value))
            first = loop.visit(_DropFirstPassSquares(squares))
            reads = {squares}
            rest = []
            dropper = _DropMeanSquared(reads, mean.value)
            for stmt in body[mean_at + 1 :]:
                if (
                    isinstance(stmt, cst.SimpleStatementLine)
                    and isinstance(stmt.body[0], cst.Assign)
                    and squares in _names(stmt.body[0].value)
                    and isinstance(stmt.body[0].targets[0].target, cst.Name)
                ):
                    reads.add(stmt.body[0].targets[0].target.value)
                rest.append(stmt.visit(dropper))
            if not dropper.changed:
                continue
            self.changed = True
            new_body = body[:i] + [first] + body[i + 1 : mean_at + 1] + [second] + rest
            return updated.with_changes(body=updated.body.with_changes(body=new_body))
        return updated


def _factors(expr) -> list:
    """The factors of a product (a * b * c -> [a, b, c]; anything else -> [expr])."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply) and not expr.lpar:
        return _factors(expr.left) + _factors(expr.right)
    return [expr]


class _XlogyAtZero(Transformer):
    """t * tl.log(...t...) (t * log(t / q), t * (tl.log(t) - lq), -t * log(t)) ->
    tl.where(t == 0, 0.0, t * tl.log(...)): the xlogy convention torch keeps (0 where t == 0,
    where the kernel computes 0 * -inf = NaN). Only the t == 0 lanes change, and only those whose
    product was NaN or 0; a product already inside a tl.where on t is left as written."""

    def __init__(self):
        super().__init__()
        self.guards: list[set[str]] = []  # names in the conditions of the enclosing tl.where calls

    def visit_Call(self, node):
        if m.matches(node.func, _tl("where")) and node.args:
            self.guards.append(_names(node.args[0].value))
        return True

    def leave_Call(self, original, updated):
        if m.matches(original.func, _tl("where")) and original.args:
            self.guards.pop()
        return updated

    def leave_BinaryOperation(self, original, updated):
        if not isinstance(updated.operator, cst.Multiply):
            return updated
        guarded = set().union(*self.guards) if self.guards else set()
        for factor_side, log_side in ((updated.left, updated.right), (updated.right, updated.left)):
            logs = _find(log_side, m.Call(func=_tl("log")), cst.Call)
            inside = set().union(*(_names(c.args[0].value) for c in logs if c.args)) if logs else set()
            for factor in _factors(factor_side):
                if isinstance(factor, cst.UnaryOperation) and isinstance(factor.operator, cst.Minus):
                    factor = factor.expression
                if isinstance(factor, cst.Name) and factor.value in inside and factor.value not in guarded:
                    self.changed = True
                    t = factor.value
                    return cst.parse_expression(f"tl.where({t} == 0, 0.0, {_code(updated)})")
        return updated


def xlogy_at_zero(source: str) -> str | None:
    return run(source, _XlogyAtZero())


def streamed_variance(source: str) -> str | None:
    return run(source, _StreamedVariance())


def log1p(source: str) -> str | None:
    return run(source, _Log1p())


def expm1(source: str) -> str | None:
    return run(source, _Expm1())


def eps_inside_sqrt(source: str) -> str | None:
    return run(source, _EpsInsideSqrt())


def round_before_int_cast(source: str) -> str | None:
    return run(source, _RoundBeforeIntCast())


def stable_formula(source: str) -> str | None:
    """The first stable rewrite whose construct the source has."""
    for patcher in (log1p, expm1, two_pass_variance, streamed_variance, xlogy_at_zero):
        patched = patcher(source)
        if patched is not None:
            return patched
    return None


__all__ = [
    "eps_inside_sqrt",
    "expm1",
    "log1p",
    "parse",
    "round_before_int_cast",
    "stable_formula",
    "streamed_variance",
    "xlogy_at_zero",
]


def from_evidence(source: str, evidence: dict) -> str | None:
    """The relation tools/diagnosis/stored_value.py re-ran and saw pass, written in again (None otherwise)."""
    return edits.written_in(source, evidence) if evidence.get("edit_operator") == "stored_value" else None
