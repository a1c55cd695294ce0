"""The stored_value experiment: a term or factor the stored value lacks, read from the kernel's own locals.

At the store of each sampled output element the access trace kept the kernel's floating locals at the lane
that stored it (sandbox/harness/access_trace.py). Where one relation holds on every sampled element, exact up
to rounding,

- golden - actual = c L^p   (a term dropped or mistyped: `y * s` for `y * (1 + s)`),
- golden = c actual L^p     (a factor or divisor dropped: `x / n` for `x / sqrt(n)`),
- golden = c L              (another local holds the answer: the wrong variable stored),
- golden - actual = c       (a constant term dropped or mistyped: `m4 / m2^2` for the excess `m4 / m2^2 - 3`),

for a local L that varies over the samples (a constant factor is the detectors' to name), once a
logic error is shown (a relation fitted to a precision failure could match the inputs' scale instead: log(1 + x)
is x to 1e-3 for tiny x), the relation written into the stored value is a repair to try: at the line that
assigns the stored variable where the local's value there is the one at the store, else in the store itself.
The re-run decides: a relation that fits the sampled elements by coincidence fails it. Where it passes on the
failing seed and on another seed of the run, that line is where the formula is wrong, and the patch says what
it lacks.
"""

from __future__ import annotations

import ast
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import torch

from tools import pyast
from tools import thresholds as T
from tools.diagnosis import repair
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.experiments import Result
from tools.diagnosis.registry import experiment
from tools.diagnosis.traced import TracedSample
from tools.diagnosis.trials import UNCHANGED_INPUTS, TrialBudgetExceeded, TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome
from tools.repair.edits import Edit
from tools.repair.source import SourceFacts

ID = "stored_value"
QUESTION = (
    "is the error of the stored value one of the kernel's own values times a constant (a term it lacks), or the "
    "golden the stored value times one (a factor it lacks)? (the kernel's locals at the store's lanes, fitted; "
    "the relation written into the kernel and re-run)"
)
OPERATOR = "stored_value"


@dataclass(frozen=True)
class Relation:
    """golden = actual + c L^p ("term"), golden = c actual L^p ("factor"), golden = c L ("instead") or
    golden = actual + c ("offset": a constant term, no local)."""

    kind: str
    name: str
    power: float
    c: float
    aliases: tuple[str, ...] = ()

    def term(self) -> str:
        """The local's contribution as kernel code: `y`, `2 * y`, `tl.sqrt(n)`, `y * y`."""
        if self.kind == "offset":
            return _literal(self.c)
        return {1.0: self.name, 2.0: f"{self.name} * {self.name}", 0.5: f"tl.sqrt({self.name})"}[abs(self.power)]

    def describe(self) -> str:
        """The relation in words: `golden - actual = 2 * y`, `golden = actual * sqrt(ms)`, `golden = acc`."""
        c = _literal(self.c)
        coefficient = "" if c == "1" else "-" if c == "-1" else f"{c} * "
        local = f"`{self.name}`"
        if self.kind == "offset":
            return f"golden - actual = {c}"
        if self.kind == "term":
            return f"golden - actual = {coefficient}{local}{'^2' if self.power == 2 else ''}"
        if self.kind == "instead":
            return f"golden = {coefficient}{local}"
        base = {1.0: local, 2.0: f"{local}^2", 0.5: f"sqrt({local})"}[abs(self.power)]
        return f"golden = {coefficient}actual {'/' if self.power < 0 else '*'} {base}"


#: (kind, power) in the order they are tried: the simplest relation that fits is the one stated.
HYPOTHESES = (
    ("instead", 1.0),
    ("term", 1.0),
    ("factor", 1.0),
    ("factor", -1.0),
    ("term", 2.0),
    ("factor", 0.5),
    ("factor", -0.5),
    ("factor", 2.0),
    ("factor", -2.0),
)


def _literal(c: float) -> str:
    """c as short code: an integer or a small fraction where it is one (to rounding), else 7 digits."""
    near = Fraction(c).limit_denominator(16)
    if abs(float(near) - c) <= 1e-4 * max(abs(c), 1e-30):
        if near.denominator == 1:
            return str(near.numerator)
        decimal = repr(float(near))
        return decimal if len(decimal) <= 6 else f"{near.numerator} / {near.denominator}"
    return f"{c:.7g}"


def _varies(y: torch.Tensor) -> bool:
    span = float(y.max() - y.min())
    return span > T.STORED_VALUE_MIN_SPREAD * float(y.abs().max())


def _proportional(x: torch.Tensor, y: torch.Tensor) -> bool:
    """x is a constant times y (to the fit's tolerance): then y adds nothing x does not say."""
    denominator = float((y * y).sum())
    if denominator == 0:
        return False
    k = float((x * y).sum()) / denominator
    return bool(((x - k * y).abs() <= T.STORED_VALUE_TOLERANCE * (x.abs() + y.abs() * abs(k))).all())


def _fit(target: torch.Tensor, y: torch.Tensor, tolerance: torch.Tensor) -> float | None:
    """c with target = c y on every sample to `tolerance` (least squares), None where none does."""
    denominator = float((y * y).sum())
    if denominator == 0 or not torch.isfinite(y).all():
        return None
    c = float((target * y).sum()) / denominator
    if c == 0 or not math.isfinite(c):
        return None
    simple = float(Fraction(c).limit_denominator(16))  # rounding blurs the fit: the simple constant if it fits too
    return next((k for k in (simple, c) if k and bool(((target - k * y).abs() <= tolerance).all())), None)


def _powered(values: torch.Tensor, power: float) -> torch.Tensor | None:
    if power in (0.5, -0.5) and bool((values < 0).any()):
        return None
    if power < 0 and bool((values == 0).any()):
        return None
    return values.pow(power)


def relation(
    samples: list[TracedSample], actual: torch.Tensor, golden: torch.Tensor, eps: float
) -> tuple[Relation, int] | None:
    """The simplest relation that holds on every sampled element stored at one line, and that line. `actual` and
    `golden`: the output, flat; `eps`: its dtype's."""
    wrong_lines = [s.store_line for s in samples if s.wrong and s.at_store and s.store_line]
    if not wrong_lines:
        return None
    line = max(set(wrong_lines), key=wrong_lines.count)
    used = [s for s in samples if s.store_line == line and s.at_store]
    if sum(s.wrong for s in used) < T.STORED_VALUE_MIN_WRONG:
        return None
    flat = torch.tensor([s.flat for s in used])
    a = actual[flat].to(torch.float64)
    g = golden[flat].to(torch.float64)
    if not (torch.isfinite(a).all() and torch.isfinite(g).all()):
        return None
    if _proportional(g, a):
        return None  # the actual scaled by one constant: the detectors' scale factor, not a local's
    floor = T.STORED_VALUE_FLOOR * (float(g.abs().median()) or 1.0)
    tolerance = max(T.STORED_VALUE_TOLERANCE, 4 * eps) * (g.abs() + a.abs() + floor)
    offset = _fit(g - a, torch.ones_like(a), tolerance)
    if offset is not None and not _proportional(a, torch.ones_like(a)):
        return Relation("offset", "", 0.0, offset), int(line)  # the simplest: one constant term for every element
    names = [n for n in used[0].at_store if all(n in s.at_store for s in used)]
    values = {n: torch.tensor([s.at_store[n] for s in used], dtype=torch.float64) for n in names}
    for kind, power in HYPOTHESES:
        fitted: list[tuple[str, float]] = []
        for name, local in values.items():
            powered = _powered(local, power)
            if powered is None or not _varies(powered):
                continue
            y = {"term": powered, "factor": a * powered, "instead": powered}[kind]
            if kind != "factor" and _proportional(a, y):
                continue  # the stored value itself (or a copy), scaled: no other value
            c = _fit(g - a if kind == "term" else g, y, tolerance)
            if c is not None:
                fitted.append((name, c))
        if fitted:
            (name, c), rest = fitted[0], fitted[1:]
            return Relation(kind, name, power, c, tuple(n for n, _ in rest)), int(line)
    return None


def _rewritten(code: str, node: ast.expr, relation: Relation) -> str:
    """The expression `code` (whose tree is `node`) with the relation applied."""
    c = _literal(relation.c)
    term = relation.term()
    if relation.kind == "offset":
        bare = isinstance(node, ast.Name | ast.Call | ast.Attribute | ast.Subscript | ast.UnaryOp) or (
            isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC)
        )
        left = code if bare else f"({code})"
        return f"{left} - {_literal(-relation.c)}" if relation.c < 0 else f"{left} + {c}"
    if relation.kind == "instead":
        return term if c == "1" else f"{c} * {term}"
    atomic = isinstance(node, ast.Name | ast.Call | ast.Attribute | ast.Subscript | ast.Constant)
    if relation.kind == "term":
        loose = not atomic and not (isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC))
        left = f"({code})" if loose else code
        if c == "1":
            return f"{left} + {term}"
        if c == "-1":
            return f"{left} - {term}" if " " not in term else f"{left} - ({term})"
        return f"{left} + {c} * {term}"
    tight = atomic or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div))
    left = code if tight else f"({code})"
    operation, operand = ("/", term if " " not in term else f"({term})") if relation.power < 0 else ("*", term)
    scaled = f"{left} {operation} {operand}"
    return scaled if c == "1" else f"{c} * {scaled}" if tight else f"{c} * ({scaled})"


ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def _store_call(tree: ast.AST, line: int) -> tuple[ast.FunctionDef, ast.stmt, ast.expr] | None:
    """(the function, the statement, the stored value) of the `tl.store` call at `line`."""
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        for statement in ast.walk(function):
            if not isinstance(statement, ast.stmt) or isinstance(statement, ast.FunctionDef):
                continue
            if not (statement.lineno <= line <= (statement.end_lineno or statement.lineno)):
                continue
            for call in ast.walk(statement):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "store":
                    value = call.args[1] if len(call.args) >= 2 else None
                    value = value or next((k.value for k in call.keywords if k.arg == "value"), None)
                    if value is not None:
                        return function, statement, value
    return None


def _unwrapped(value: ast.expr) -> ast.expr:
    """The value a `.to(dtype)` cast at the store converts (the relation is of the value before its rounding)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "to":
        return value.func.value
    return value


def _assigned(node: ast.AST, names: set[str]) -> bool:
    """`node` assigns one of `names` (an assignment, a loop target, a walrus)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names:
            return True
    return False


def _defined_before(function: ast.FunctionDef, name: str, line: int) -> bool:
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    if name in params:
        return True
    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name and n.lineno < line
        for n in ast.walk(function)
    )


def _assignment_site(function: ast.FunctionDef, store: ast.stmt, stored: ast.expr, local: str) -> ast.Assign | None:
    """The `X = expr` whose X the store stores, where the relation can be written there: the assignment and the
    store in one block, nothing between them assigns X or the local, and the local is set before it."""
    if not isinstance(stored, ast.Name):
        return None
    for body in (b for n in ast.walk(function) for b in _bodies(n)):
        if store not in body:
            continue
        at = body.index(store)
        for k in range(at - 1, -1, -1):
            statement = body[k]
            if not _assigned(statement, {stored.id}):
                if _assigned(statement, {local}):
                    return None
                continue
            simple = (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id == stored.id
                and statement.lineno == statement.end_lineno
            )
            if not simple or (local and not _defined_before(function, local, statement.lineno)):
                return None
            return statement  # type: ignore[return-value] - checked above
        return None
    return None


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    return [getattr(node, f) for f in ("body", "orelse", "finalbody") if isinstance(getattr(node, f, None), list)]


def edits(source: str, store_line: int, relation: Relation) -> list[Edit]:
    """The relation written into the candidate: at the stored variable's assignment first, then at the store."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    found = _store_call(tree, store_line)
    if found is None:
        return []
    function, store, value = found
    lines = source.splitlines(keepends=True)
    stored = _unwrapped(value)
    made = []
    site = _assignment_site(function, store, stored, relation.name) if relation.kind != "instead" else None
    if site is not None:
        made.append(_edit(lines, site.value, relation))
    made.append(_edit(lines, stored, relation, receiver=stored is not value))
    return [e for e in made if e is not None]


def _edit(lines: list[str], node: ast.expr, relation: Relation, receiver: bool = False) -> Edit | None:
    """`receiver`: the node is what a `.to(...)` converts (a rewritten one is bracketed to stay its receiver)."""
    if node.lineno != node.end_lineno or node.end_col_offset is None:
        return None  # an expression over several lines: not rewritten in place
    text = lines[node.lineno - 1]
    code = text[node.col_offset : node.end_col_offset]
    after = _rewritten(code, node, relation)
    if receiver and not after.isidentifier():
        after = f"({after})"
    patched = [*lines[: node.lineno - 1], text[: node.col_offset] + after + text[node.end_col_offset :]]
    source = "".join(patched + lines[node.lineno :])
    return Edit(line=node.lineno, operator=OPERATOR, before=code, after=after, fix="fix_formula", source=source)


def _target(ctx: RunContext, diagnoses: list[Diagnosis]) -> OutputData | None:
    target = repair.failing_output(ctx)
    if target is None or target.actual is None or not target.actual.is_floating_point():
        return None
    settled = any(
        d.output in (target.name, None) and "edit_after" in d.evidence and d.tested != "refuted" for d in diagnoses
    )
    if settled or repair.numeric_cause_shown(diagnoses, target.name) or repair.rounding_shown(ctx):
        return None
    # a logic error shown (exact arithmetic keeps it, or a proof): where precision may be the cause, a relation can
    # fit to the inputs' scale (log(1 + x) is x to 1e-3 for tiny x) and "repair" the kernel into another function
    logic = repair.leading_logic(diagnoses, target.name)
    return target if logic is not None and logic.tested in ("confirmed", "proven") else None


@experiment(ID, QUESTION, tests=("formula_error",), before="input_layout")
def stored_value(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = _target(ctx, diagnoses)
    if target is None or not ctx.traced or not ctx.source:
        return None
    eps = torch.finfo(target.actual.dtype).eps  # type: ignore[union-attr] - _target checked it
    found = relation(ctx.traced, target.a.reshape(-1), target.g.reshape(-1), eps)
    if found is None:
        return None
    fitted, store_line = found
    deadline = time.monotonic() + runner.remaining_s
    on_another_seed = repair.on_another_seed(runner, deadline)
    tried = []
    for edit in edits(ctx.source, store_line, fitted):
        try:
            trial = runner.run(
                f"{edit.describe()} ({fitted.describe()})", candidate=edit.source, inputs_key=UNCHANGED_INPUTS
            )
        except TrialBudgetExceeded:
            break
        tried.append(edit.describe())
        if trial.clean and on_another_seed(edit):
            return _located(ctx, diagnoses, target, edit, fitted, store_line)
    if not tried:
        return None
    finding = (
        f"the sampled elements fit {fitted.describe()} (the value stored at line {store_line}), but the kernel "
        f"with it written in does not pass ({'; '.join(tried)}): a coincidence of the sampled values, no repair"
    )
    return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding))


def _located(
    ctx: RunContext, diagnoses: list[Diagnosis], target: OutputData, edit: Edit, fitted: Relation, store_line: int
) -> Result:
    aliases = f" (as do {', '.join(fitted.aliases)})" if fitted.aliases else ""
    what = {
        "term": f"it lacks a term: {fitted.describe()} on every sampled element{aliases}",
        "offset": f"it lacks a constant term: {fitted.describe()} on every sampled element",
        "factor": f"it lacks a factor: {fitted.describe()} on every sampled element{aliases}",
        "instead": f"another local holds the answer: {fitted.describe()} on every sampled element{aliases}",
    }[fitted.kind]
    finding = (
        f"the value stored at line {store_line}: {what}; with {edit.describe()} the candidate passes on the "
        "failing seed"
    )
    diagnosis = repair.located(repair.leading_logic(diagnoses, target.name), edit, ctx, target, finding)
    diagnosis = diagnosis.model_copy(
        update={
            "summary": f"{diagnosis.summary.split(';')[0]} ({what})",
            "evidence": {**diagnosis.evidence, "experiment": ID, "relation": fitted.describe()},
        }
    )
    outcome = ExperimentOutcome(id=ID, question=QUESTION, finding=finding, confirms=[diagnosis.pattern])
    return Result(outcome, [diagnosis], settled=True)
