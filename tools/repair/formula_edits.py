"""The rewrites of a formula that lost a function, a sign or a factor of two, for the repair search's edits.

A formula slip is often one construct left out of a value: a minus (`w = tl.exp(d)` for `-tl.exp(d)`), a
root (`v * t` for `v * tl.sqrt(t)`), an exponential (a log-parameter used as is), a half or a double (`v * v` for
`0.5 * v * v`, pi for 2 pi). No rule says which value lost what; each rewrite here is one guess that the search
(tools/repair/search.py) re-runs and keeps only if the kernel then passes on every seed. tools/repair/edits.py
decides where they are offered (values, not indices, masks or addresses); these functions only write them.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tools.repair.syntax import bare, code, operand, tl_attr

#: The functions a value may have lost: `tl.sqrt(x)` (a norm, a standard deviation), `tl.exp(x)` (a log-scale).
LOST_FUNCTIONS = ("sqrt", "exp")
#: The factors a value may have lost or gained: a half (a mean of two, 1/2 v^2) or a double (2 pi, 2 - erfc).
LOST_FACTORS = ("2.0", "0.5")
#: Calls whose value no factor or function changes the meaning of: allocations, constants, lane and program ids.
_STRUCTURAL = ("zeros", "full", "arange", "program_id", "num_programs", "zeros_like")


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` without its parentheses (a negated value's too: `(-x)`)."""
    return expr.with_changes(lpar=[], rpar=[]) if isinstance(expr, cst.UnaryOperation) else bare(expr)


def _atom(expr: cst.BaseExpression) -> str:
    """`expr` as code any operator can take as its operand (a literal unparenthesized)."""
    stripped = _bare(expr)
    return code(stripped) if isinstance(stripped, cst.Float | cst.Integer) else operand(stripped)


def structural(expr: cst.BaseExpression) -> bool:
    """A value made by an allocation or an id (`tl.zeros(...)`, `tl.arange(...)`): nothing to rewrite."""
    bare = _bare(expr)
    return isinstance(bare, cst.Call) and m.matches(bare.func, m.OneOf(*(tl_attr(f) for f in _STRUCTURAL)))


def wrapped(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`expr` negated, and under each lost function, but none it already is (`-x` is not negated again)."""
    bare = _bare(expr)
    options: list[cst.BaseExpression] = []
    if not m.matches(bare, m.UnaryOperation(operator=m.Minus())):
        options.append(cst.parse_expression(f"-{_atom(bare)}"))
    for function in LOST_FUNCTIONS:
        if not m.matches(bare, m.Call(func=tl_attr(function))):
            options.append(cst.parse_expression(f"tl.{function}({code(bare)})"))
    return options


def rooted(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`tl.sqrt(expr)`: an operand of a product or quotient that lost its root (`v * t` for `v * tl.sqrt(t)`)."""
    bare = _bare(expr)
    if m.matches(bare, m.Call(func=m.OneOf(tl_attr("sqrt"), tl_attr("rsqrt")))) or _literal(bare):
        return []
    return [cst.parse_expression(f"tl.sqrt({code(bare)})")]


def squared(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`(expr * expr)`: a divisor that lost its square (`x / n` for `x / (n * n)`); not a literal's."""
    bare = _bare(expr)
    if _literal(bare) or structural(bare):
        return []
    return [cst.parse_expression(f"({operand(bare)} * {operand(bare)})")]


def negated(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`-expr`, unless it is negated already (then `expr` without its minus is the edit of the `negate` operator)."""
    bare = _bare(expr)
    if m.matches(bare, m.UnaryOperation(operator=m.Minus())) or _literal(bare):
        return []
    return [cst.parse_expression(f"-{_atom(bare)}")]


def scaled(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`expr` doubled and halved (`0.5 * v * v`: a product or quotient needs no parentheses after the factor)."""
    bare = _bare(expr)
    product = isinstance(bare, cst.BinaryOperation) and isinstance(bare.operator, cst.Multiply | cst.Divide)
    text = code(bare) if product else _atom(bare)
    return [cst.parse_expression(f"{factor} * {text}") for factor in LOST_FACTORS]


def scaled_literal(literal: cst.Float) -> list[cst.BaseExpression]:
    """A float constant doubled and halved (`3.141592653589793` for 2 pi, `1.0 - r` for `2.0 - r`)."""
    value = float(literal.evaluated_value)
    if value == 0.0:
        return []
    return [cst.Float(repr(value * 2.0)), cst.Float(repr(value / 2.0))]


def _literal(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Float | cst.Integer)
