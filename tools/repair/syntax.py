"""Small libcst helpers shared by the repair edits and the fix patches (tools/repair/patches.py)."""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

TL = m.Name("tl")


def tl_attr(attr: str) -> m.Attribute:
    """Matches `tl.<attr>`."""
    return m.Attribute(value=TL, attr=m.Name(attr))


def code(node: cst.CSTNode) -> str:
    """A node's source text."""
    return cst.Module(body=[]).code_for_node(node)


def kwarg(call: cst.Call, name: str) -> cst.Arg | None:
    """The keyword argument `name` of a call, if given."""
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` without the parentheses it had as an operand."""
    return node.with_changes(lpar=[], rpar=[]) if isinstance(node, cst.BinaryOperation | cst.Comparison) else node


def simple(expr: cst.BaseExpression) -> bool:
    """A name, attribute, call or subscript: code any operator takes as its operand without parentheses."""
    return isinstance(expr, cst.Name | cst.Attribute | cst.Call | cst.Subscript)


def operand(expr: cst.BaseExpression) -> str:
    """`expr` as code that can be any operator's operand: parenthesized unless a name, attribute, call or subscript."""
    stripped = bare(expr)
    return code(stripped) if simple(stripped) else f"({code(stripped)})"
