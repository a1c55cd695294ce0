"""Mutation operators over Triton candidates: each plants one known kind of bug.

An operator finds every site of its construct in a correct candidate and makes one mutant per
site, rewritten on the syntax tree (libcst). Each operator says which failure pattern(s) a
correct diagnosis names, which fix repairs it (and whether a patch can), and the inputs that
expose it. Registered in OPERATORS; `kernel-eval mutate` and benchmarks/diagnosis_eval.py use them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m

from tools.repair.patches import _code, _kwarg, _names, _tl, _with_kwarg, parse, stride_pairs, swap_args


@dataclass(frozen=True)
class Exposure:
    """Inputs that expose the bug: an input profile, optionally a value range."""

    input_profile: str = "task"
    value_range: tuple[float, float] | None = None


@dataclass(frozen=True)
class Operator:
    id: str
    family: str  # masks, grid, accumulation, dot, formula, rounding, layout, memory
    description: str
    expected: tuple[str, ...]  # pattern ids a correct diagnosis may name first
    fix: str | None  # the fix that repairs it
    patchable: bool  # whether suggest_fix can be expected to patch it
    exposures: tuple[Exposure, ...] = (Exposure(),)  # tried in order, the first the kernel supports
    gpu_only: bool = False  # the interpreter cannot show it (tf32, atomics' order)
    transformer: Callable[[int], SiteTransformer] = field(default=None, repr=False)  # type: ignore[assignment]

    def mutants(self, source: str) -> list[str]:
        """One mutated source per site of the construct (none when it is absent)."""
        tree = parse(source)
        if tree is None:
            return []
        counter = self.transformer(-1)
        tree.visit(counter)
        out = []
        for site in range(counter.seen):
            mutant = self.transformer(site)
            code = tree.visit(mutant).code
            if mutant.changed and code != source and code not in out:
                out.append(code)
        return out


class SiteTransformer(cst.CSTTransformer):
    """Mutates the `target`-th site it meets (target -1: only counts the sites)."""

    def __init__(self, target: int):
        super().__init__()
        self.target = target
        self.seen = 0
        self.changed = False

    def hit(self) -> bool:
        """True exactly at the target site; counts every site."""
        index = self.seen
        self.seen += 1
        if index == self.target:
            self.changed = True
            return True
        return False


def _without_kwargs(call: cst.Call, *names: str) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value in names)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


class _DropLoadMask(SiteTransformer):
    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("load")) and _kwarg(updated, "mask") is not None and self.hit():
            return _without_kwargs(updated, "mask", "other")
        return updated


class _DropStoreMask(SiteTransformer):
    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("store")) and _kwarg(updated, "mask") is not None and self.hit():
            return _without_kwargs(updated, "mask")
        return updated


class _FloorGrid(SiteTransformer):
    """triton.cdiv(a, b) in host code -> a // b."""

    def leave_Call(self, original, updated):
        if (
            m.matches(updated.func, m.Attribute(value=m.Name("triton"), attr=m.Name("cdiv")))
            and len(updated.args) == 2
            and self.hit()
        ):
            return cst.parse_expression(f"({_code(updated.args[0].value)}) // ({_code(updated.args[1].value)})")
        return updated


class _Fp16Accumulator(SiteTransformer):
    """acc = tl.zeros(..., dtype=tl.float32) -> fp16, and every update of acc rounded to fp16
    (`acc += x` -> `acc += (x).to(tl.float16)`): Triton would otherwise promote acc back to
    fp32 at the first fp32 addition, and the mutant would change nothing."""

    def __init__(self, target: int):
        super().__init__(target)
        self.accumulator: str | None = None

    def leave_Assign(self, original, updated):
        target, value = updated.targets[0].target, updated.value
        if not isinstance(target, cst.Name):
            return updated
        if m.matches(value, m.Call(func=_tl("zeros") | _tl("full"))):
            dtype = _kwarg(value, "dtype")
            if dtype is not None and m.matches(dtype.value, _tl("float32")) and self.hit():
                self.accumulator = target.value
                return updated.with_changes(value=_with_kwarg(value, "dtype", cst.parse_expression("tl.float16")))
            return updated
        if target.value == self.accumulator and self.accumulator in _names(value):
            return updated.with_changes(value=cst.parse_expression(f"({_code(value)}).to(tl.float16)"))
        return updated

    def leave_AugAssign(self, original, updated):
        if isinstance(updated.target, cst.Name) and updated.target.value == self.accumulator:
            return updated.with_changes(value=cst.parse_expression(f"({_code(updated.value)}).to(tl.float16)"))
        return updated


class _DropUpcast(SiteTransformer):
    """tl.load(...).to(tl.float32) -> tl.load(...): low-precision data stays low precision."""

    def leave_Call(self, original, updated):
        if (
            m.matches(updated.func, m.Attribute(value=m.Call(func=_tl("load")), attr=m.Name("to")))
            and updated.args
            and m.matches(updated.args[0].value, _tl("float32"))
            and self.hit()
        ):
            return updated.func.value
        return updated


class _Tf32Dot(SiteTransformer):
    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("dot")):
            precision = _kwarg(updated, "input_precision")
            if precision is not None and "ieee" in _code(precision.value) and self.hit():
                return _with_kwarg(updated, "input_precision", cst.SimpleString('"tf32"'))
        return updated


class _DropMaxSubtraction(SiteTransformer):
    """x - tl.max(x, ...) -> x."""

    def leave_BinaryOperation(self, original, updated):
        if (
            isinstance(updated.operator, cst.Subtract)
            and m.matches(updated.right, m.Call(func=_tl("max")))
            and updated.right.args
            and _code(updated.right.args[0].value) == _code(updated.left)
            and self.hit()
        ):
            return updated.left
        return updated


class _OnePassVariance(SiteTransformer):
    """tl.sum(d * d, axis) / n with d = x - mean (or a masked where of it) ->
    tl.sum(x * x, axis) / n - mean * mean."""

    def __init__(self, target: int):
        super().__init__(target)
        self.centred: dict[str, tuple[str, str]] = {}  # d -> (x, mean)

    def visit_Assign(self, node):
        target = node.targets[0].target
        value = node.value
        if isinstance(value, cst.Call) and m.matches(value.func, _tl("where")) and len(value.args) == 3:
            value = value.args[1].value
        if (
            isinstance(target, cst.Name)
            and isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.Subtract)
            and isinstance(value.left, cst.Name)
            and isinstance(value.right, cst.Name)
        ):
            self.centred[target.value] = (value.left.value, value.right.value)

    def leave_BinaryOperation(self, original, updated):
        if not (isinstance(updated.operator, cst.Divide) and m.matches(updated.left, m.Call(func=_tl("sum")))):
            return updated
        arg = updated.left.args[0].value if updated.left.args else None
        if not (
            isinstance(arg, cst.BinaryOperation)
            and isinstance(arg.operator, cst.Multiply)
            and isinstance(arg.left, cst.Name)
            and _code(arg.left) == _code(arg.right)
            and arg.left.value in self.centred
        ):
            return updated
        if not self.hit():
            return updated
        x, mean = self.centred[arg.left.value]
        rest = "".join(f", {_code(a)}" for a in updated.left.args[1:])
        return cst.parse_expression(f"(tl.sum({x} * {x}{rest}) / ({_code(updated.right)}) - {mean} * {mean})")


class _DropRounding(SiteTransformer):
    """Rounding before a float -> int cast removed: (q + C) - C -> q, tl.floor(q + 0.5) -> q."""

    def leave_BinaryOperation(self, original, updated):
        if (
            isinstance(updated.operator, cst.Subtract)
            and isinstance(updated.left, cst.BinaryOperation)
            and isinstance(updated.left.operator, cst.Add)
            and _code(updated.right) == _code(updated.left.right)
            and _code(updated.right).startswith("12582912")
            and self.hit()
        ):
            return updated.left.left
        return updated


class _RtzCast(SiteTransformer):
    """x.to(tl.float16) -> x.to(tl.float16, fp_downcast_rounding="rtz")."""

    def leave_Call(self, original, updated):
        if (
            m.matches(updated.func, m.Attribute(attr=m.Name("to")))
            and updated.args
            and m.matches(updated.args[0].value, _tl("float16"))
            and _kwarg(updated, "fp_downcast_rounding") is None
            and self.hit()
        ):
            return _with_kwarg(updated, "fp_downcast_rounding", cst.SimpleString('"rtz"'))
        return updated


class _SwapStrides(SiteTransformer):
    """t.stride(0), t.stride(1) passed in that order -> swapped."""

    def leave_Call(self, original, updated):
        for i in stride_pairs(updated.args, 0, 1):
            if self.hit():
                return updated.with_changes(args=swap_args(updated.args, i))
        return updated


class _EpsOutsideSqrt(SiteTransformer):
    """tl.sqrt(v + eps) -> tl.sqrt(v) + eps; tl.rsqrt(v + eps) -> 1.0 / (tl.sqrt(v) + eps)."""

    def leave_Call(self, original, updated):
        if m.matches(updated.func, _tl("sqrt") | _tl("rsqrt")) and updated.args:
            inner = updated.args[0].value
            if (
                isinstance(inner, cst.BinaryOperation)
                and isinstance(inner.operator, cst.Add)
                and "eps" in _code(inner.right).lower()
                and self.hit()
            ):
                sqrt = f"tl.sqrt({_code(inner.left)}) + {_code(inner.right)}"
                return cst.parse_expression(f"({sqrt})" if updated.func.attr.value == "sqrt" else f"(1.0 / ({sqrt}))")
        return updated


class _OffByOne(SiteTransformer):
    """offsets = ... + tl.arange(0, BLOCK) -> ... + tl.arange(0, BLOCK) + 1 (first assignment in a kernel)."""

    def leave_Assign(self, original, updated):
        if (
            len(m.findall(updated.value, m.Call(func=_tl("arange")))) == 1
            and isinstance(updated.targets[0].target, cst.Name)
            and self.hit()
        ):
            return updated.with_changes(value=cst.parse_expression(f"({_code(updated.value)}) + 1"))
        return updated


class _DropStore(SiteTransformer):
    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        if isinstance(stmt, cst.Expr) and m.matches(stmt.value, m.Call(func=_tl("store"))) and self.hit():
            return cst.parse_statement("pass")
        return updated


class _InPlace(SiteTransformer):
    """out = torch.empty_like(x) -> out = x: the kernel writes into its input."""

    def leave_Assign(self, original, updated):
        value = updated.value
        if (
            m.matches(value, m.Call(func=m.Attribute(value=m.Name("torch"), attr=m.Name("empty_like"))))
            and value.args
            and isinstance(value.args[0].value, cst.Name)
            and self.hit()
        ):
            return updated.with_changes(value=value.args[0].value)
        return updated


class _WrongDivisor(SiteTransformer):
    """tl.sum(...) / n -> tl.sum(...) / (n + 1): a normalisation by the wrong count."""

    def leave_BinaryOperation(self, original, updated):
        if (
            isinstance(updated.operator, cst.Divide)
            and m.matches(updated.left, m.Call(func=_tl("sum")))
            and isinstance(updated.right, cst.Name)
            and self.hit()
        ):
            return updated.with_changes(right=cst.parse_expression(f"({updated.right.value} + 1)"))
        return updated


def _op(
    id, family, description, expected, fix, patchable, transformer, exposures=(Exposure(),), gpu_only=False
) -> Operator:
    return Operator(id, family, description, tuple(expected), fix, patchable, tuple(exposures), gpu_only, transformer)


LARGE = Exposure("large_magnitude")
SMALL = Exposure("small_values")
SHIFTED = Exposure("task", (1000.0, 1001.0))

OPERATORS: dict[str, Operator] = {
    op.id: op
    for op in [
        _op(
            "drop_load_mask",
            "masks",
            "a tl.load loses its mask (reads past the tail)",
            ["boundary_mask_error"],
            "boundary_mask",
            True,
            _DropLoadMask,
        ),
        _op(
            "drop_store_mask",
            "masks",
            "a tl.store loses its mask (writes past the tail)",
            ["boundary_mask_error"],
            "boundary_mask",
            True,
            _DropStoreMask,
        ),
        _op(
            "floor_grid",
            "grid",
            "triton.cdiv in the launch grid becomes floor division",
            ["boundary_mask_error", "unwritten_output", "all_zero_output"],
            "boundary_mask",
            True,
            _FloorGrid,
        ),
        _op(
            "fp16_accumulator",
            "accumulation",
            "an fp32 accumulator (tl.zeros) becomes fp16",
            ["low_precision_accumulation", "large_k_accumulation_drift", "inf_overflow"],
            "fp32_accumulator",
            True,
            _Fp16Accumulator,
            (Exposure(), LARGE),
        ),
        _op(
            "drop_upcast",
            "accumulation",
            "a load's .to(tl.float32) upcast is removed",
            ["low_precision_accumulation", "inf_overflow", "large_k_accumulation_drift"],
            "fp32_accumulator",
            True,
            _DropUpcast,
            (LARGE, Exposure()),
        ),
        _op(
            "tf32_dot",
            "dot",
            "tl.dot(input_precision='ieee') becomes tf32",
            ["reduced_precision_dot"],
            "ieee_dot_precision",
            True,
            _Tf32Dot,
            gpu_only=True,
        ),
        _op(
            "drop_max_subtraction",
            "formula",
            "softmax loses its max subtraction",
            ["inf_overflow"],
            "max_subtraction",
            True,
            _DropMaxSubtraction,
            (LARGE,),
        ),
        _op(
            "one_pass_variance",
            "formula",
            "two-pass variance becomes E[x^2] - E[x]^2",
            ["cancellation_error"],
            "stable_formula",
            True,
            _OnePassVariance,
            (SHIFTED,),
        ),
        _op(
            "drop_rounding",
            "rounding",
            "rounding before a float -> int cast is removed (truncation)",
            ["rounding_mode_bias"],
            "cast_round_mode_rint",
            True,
            _DropRounding,
        ),
        _op(
            "rtz_cast",
            "rounding",
            "a cast to fp16 rounds toward zero",
            ["rounding_mode_bias"],
            "cast_round_mode_rint",
            True,
            _RtzCast,
        ),
        _op(
            "swap_strides",
            "layout",
            "two stride arguments of a launch are swapped",
            ["layout_mismatch", "boundary_mask_error", "unwritten_output"],
            "fix_layout",
            True,
            _SwapStrides,
        ),
        _op(
            "eps_outside_sqrt",
            "formula",
            "eps moves outside the square root",
            ["formula_error"],
            "fix_formula",
            True,
            _EpsOutsideSqrt,
            (SMALL,),
        ),
        _op(
            "off_by_one",
            "masks",
            "the offsets of a kernel are shifted by one element",
            ["boundary_mask_error", "unwritten_output", "layout_mismatch", "formula_error"],
            None,
            False,
            _OffByOne,
        ),
        _op(
            "drop_store",
            "memory",
            "a tl.store is removed",
            ["unwritten_output", "all_zero_output", "boundary_mask_error"],
            None,
            False,
            _DropStore,
        ),
        _op(
            "in_place",
            "memory",
            "the output allocation becomes the input (written in place)",
            ["input_mutation"],
            "do_not_mutate_inputs",
            True,
            _InPlace,
        ),
        _op(
            "wrong_divisor",
            "formula",
            "a normalisation divides by n + 1",
            ["layout_mismatch", "formula_error"],
            "fix_formula",
            False,
            _WrongDivisor,
        ),
    ]
}
