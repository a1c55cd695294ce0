"""What the candidate's source shows: cheap syntactic evidence the detectors weigh.

Read with Python's ast (the source parsed; nothing runs). Each finding names the line.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

from tools import pyast

INTEGER_TYPES = {"int8", "int16", "int32", "uint8", "uint16", "uint32"}
LOW_PRECISION = {"float16", "bfloat16", "float8e4nv", "float8e5", "float8_e4m3fn", "float8_e5m2"}


@dataclass
class SourceFacts:
    low_precision_accumulator: list[int] = field(default_factory=list)  # lines
    dot_accumulate_in_loop: list[int] = field(default_factory=list)  # acc += tl.dot(...) inside for
    dot_without_ieee: list[int] = field(default_factory=list)
    rtz_cast: list[int] = field(default_factory=list)
    floor_division_grid: list[int] = field(default_factory=list)
    unmasked_loads: list[int] = field(default_factory=list)  # tl.load of a block of pointers without mask
    unmasked_stores: list[int] = field(default_factory=list)  # tl.store of a block of pointers without mask
    # masked, but the mask leaves a BLOCK-tiled dimension of the pointer unbounded (a K loop masked on m only)
    partially_masked_loads: list[int] = field(default_factory=list)
    partially_masked_stores: list[int] = field(default_factory=list)
    float_to_int_cast: list[int] = field(default_factory=list)  # x.to(tl.int8) and friends: truncates toward zero
    eps_outside_sqrt: list[int] = field(default_factory=list)  # tl.sqrt(v) + eps, where sqrt(v + eps) is usual
    swapped_strides: list[int] = field(default_factory=list)  # t.stride(d + 1), t.stride(d) passed in that order
    mentions_low_precision: bool = False  # fp16 / bf16 / fp8 named anywhere (casts, zeros, torch dtypes)
    exp_without_max: list[int] = field(default_factory=list)
    atomic_add: list[int] = field(default_factory=list)
    # tl.atomic_* of a block of pointers without a mask: padding lanes of a partial block take part
    unmasked_atomics: list[int] = field(default_factory=list)
    # tl.store to the same pointer a tl.load read, the address computed from loaded values (a scatter:
    # out[idx] = out[idx] + 1) and no atomic: lanes or programs hitting one address overwrite each other
    gather_read_modify_write: list[int] = field(default_factory=list)
    log_one_plus: list[int] = field(default_factory=list)
    one_pass_variance: list[int] = field(default_factory=list)
    block_sizes: dict[str, list[int]] = field(default_factory=dict)  # BLOCK* name -> integer values given
    # host-side allocations that start at zero (torch.zeros, zeros_like, new_zeros, zero_, fill_, full):
    # the harness poisons only torch.empty*, so only these can return zeros the kernel never wrote
    zero_allocations: list[int] = field(default_factory=list)
    # masked loads padded (other=) with a finite constant while their value feeds a max / min:
    # line -> the padding, which wins that reduction wherever every real lane is below (above) it
    padded_extremes: dict[int, float] = field(default_factory=dict)

    @property
    def tail_loads(self) -> list[int]:
        """Loads that can read past a partial last block: unmasked, or masked on some dimensions only."""
        return sorted(set(self.unmasked_loads + self.partially_masked_loads))

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
        tree = pyast.parse(source)
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
    _memory_accesses(tree, facts)
    for call in _calls(tree, "to"):
        target = call.args[0] if call.args else _kw(call, "dtype")
        if target is not None and _attr_name(target).split(".")[-1] in INTEGER_TYPES and not _boolean(call.func):
            facts.float_to_int_cast.append(call.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for root, other in ((node.left, node.right), (node.right, node.left)):
                if (
                    isinstance(root, ast.Call)
                    and _attr_name(root.func).split(".")[-1] == "sqrt"
                    and "eps" in _attr_name(other).lower()
                ):
                    facts.eps_outside_sqrt.append(node.lineno)
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
        squares = _accumulated_squares(fn)
        for node in ast.walk(fn):  # E[x^2] - E[x]^2, summed at once or streamed (acc += x * x)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
                left_sums_square = any(_is_square(a) for c in _calls(node.left, "sum") for a in c.args[:1])
                left_streamed = any(isinstance(n, ast.Name) and n.id in squares for n in ast.walk(node.left))
                if (left_sums_square or left_streamed) and _is_square(node.right):
                    facts.one_pass_variance.append(node.lineno)
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        codes = [ast.unparse(a) for a in call.args]
        if any(_descending_strides(a, b) for a, b in zip(codes, codes[1:], strict=False)):
            facts.swapped_strides.append(call.lineno)
    facts.mentions_low_precision = any(
        isinstance(n, ast.Attribute) and n.attr in LOW_PRECISION | {"half"} for n in ast.walk(tree)
    )
    facts.padded_extremes = _padded_extremes(tree)
    facts.atomic_add = [c.lineno for c in _calls(tree, "atomic_add")]
    facts.gather_read_modify_write = gather_read_modify_writes(tree)
    facts.block_sizes = _block_sizes(tree)
    zero_makers = ("zeros", "zeros_like", "new_zeros", "zero_", "fill_", "full", "full_like", "new_full")
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = _attr_name(call.func)
        if name.split(".")[-1] in zero_makers and not name.startswith(("tl.", "triton.")):
            facts.zero_allocations.append(call.lineno)
    return facts


_EXTREMES = {"max": "max", "maximum": "max", "argmax": "max", "min": "min", "minimum": "min", "argmin": "min"}
_RUNNING = {ast.Gt: "max", ast.GtE: "max", ast.Lt: "min", ast.LtE: "min"}


def extreme_uses(tree: ast.AST) -> list[tuple[str, str, int]]:
    """(name, "max" / "min" / "sum", line) for each use of a name's value in a maximum or a minimum:
    an argument of tl.max or tl.argmax (tl.min ...), of tl.maximum beside another block value
    (`m = tl.maximum(m, x)`), or a value compared against another block value (`take = x > best`:
    a hand-written running max or argmax); and for each tl.sum of a name (an infinite padding would
    poison it). Against a kernel parameter or a constant, tl.maximum is a clamp and a comparison a
    threshold: masked lanes win nothing there."""
    scalars = {a.arg for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) for a in fn.args.args}
    # against a parameter or a constant, tl.maximum is a clamp and a comparison a threshold
    running = lambda a, b: all(isinstance(v, ast.Name) and v.id not in scalars for v in (a, b))  # noqa: E731
    uses = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = _attr_name(call.func)
        kind = _EXTREMES.get(name.split(".")[-1]) if name.startswith(("tl.", "triton.language.")) else None
        kind = "sum" if name.endswith(".sum") else kind
        args = call.args
        if name.endswith(("maximum", "minimum")):
            if len(args) >= 2 and running(args[0], args[1]):
                uses += [(a.id, kind, call.lineno) for a in args[:2] if isinstance(a, ast.Name)]
        elif kind and args and isinstance(args[0], ast.Name):
            uses.append((args[0].id, kind, call.lineno))
    for node in (n for n in ast.walk(tree) if isinstance(n, ast.Compare)):
        kind = _RUNNING.get(type(node.ops[0])) if len(node.ops) == 1 else None
        if kind and isinstance(node.left, ast.Name) and running(node.left, node.comparators[0]):
            uses.append((node.left.id, kind, node.lineno))
    return uses


def extreme_operands(tree: ast.AST) -> dict[str, str]:
    """Names whose values feed a maximum or a minimum anywhere -> "max" / "min" (names also
    summed left out)."""
    uses = extreme_uses(tree)
    summed = {name for name, kind, _ in uses if kind == "sum"}
    return {name: kind for name, kind, _ in uses if kind != "sum" and name not in summed}


def _constant(node) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _padded_extremes(tree: ast.Module) -> dict[int, float]:
    """Masked loads padded with a finite constant whose value, before the name is assigned again,
    feeds a max / min and no sum."""
    found = {}
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        assigned: dict[str, list[int]] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign | ast.AugAssign):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(node.lineno)
        uses = extreme_uses(fn)
        for node in (n for n in ast.walk(fn) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)):
            target, call = node.targets[0], node.value
            if not isinstance(call, ast.Call) or not isinstance(target, ast.Name):
                continue
            if _attr_name(call.func) != "tl.load" or _kw(call, "mask") is None:
                continue
            padding = _constant(_kw(call, "other"))
            if padding is None or not math.isfinite(padding):
                continue
            until = min((line for line in assigned[target.id] if line > node.lineno), default=math.inf)
            kinds = {kind for name, kind, line in uses if name == target.id and node.lineno < line <= until}
            if kinds and "sum" not in kinds:
                found[node.lineno] = padding
    return found


def _descending_strides(a: str, b: str) -> bool:
    """`t.stride(d + 1), t.stride(d)`: two strides of one tensor passed in swapped order."""
    if not (a.endswith(")") and b.endswith(")") and ".stride(" in a and ".stride(" in b):
        return False
    (ta, da), (tb, db) = a[:-1].rsplit(".stride(", 1), b[:-1].rsplit(".stride(", 1)
    return ta == tb and da.isdigit() and db.isdigit() and int(da) == int(db) + 1


def _is_square(node) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and ast.dump(node.left) == ast.dump(node.right)


def _accumulated_squares(fn) -> set[str]:
    """Names that a loop accumulates squares into (`acc += x * x`), and names summed from them."""
    names = {
        n.target.id
        for loop in ast.walk(fn)
        if isinstance(loop, ast.For)
        for n in ast.walk(loop)
        if isinstance(n, ast.AugAssign)
        and isinstance(n.op, ast.Add)
        and isinstance(n.target, ast.Name)
        and _is_square(n.value)
    }
    for node in ast.walk(fn):  # s = tl.sum(acc) / n
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node.value))
        ):
            names.add(node.targets[0].id)
    return names


def _block_sizes(tree) -> dict[str, list[int]]:
    """BLOCK_M = 64, `BLOCK_M, BLOCK_N = 64, 32`, and BLOCK_M=64 as a keyword argument."""
    found: dict[str, set[int]] = {}

    def add(name: str, value) -> None:
        if (
            "BLOCK" in name.upper()
            and isinstance(value, ast.Constant)
            and isinstance(value.value, int)
            and not isinstance(value.value, bool)
            and value.value > 0
        ):
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


# --- which accesses can run past a tail --------------------------------------------------------

#: tl calls whose result is a block (its lanes differ, or it has a block's shape).
_BLOCK_MAKERS = {
    "arange",
    "zeros",
    "full",
    "zeros_like",
    "full_like",
    "make_block_ptr",
    "broadcast_to",
    "rand",
    "randn",
}
#: Root of a value whose block dimensions are not known (a helper's parameter, a helper's result).
_UNKNOWN = "?"


def _expr_roots(node, roots: dict[str, frozenset[str]], helpers: set[str]) -> frozenset[str]:
    """What makes `node` block-shaped: the tl.arange calls (by their arguments) it derives from,
    'block' for other block makers, _UNKNOWN for helpers; empty for a scalar."""
    found: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            found |= roots.get(n.id, frozenset())
        elif isinstance(n, ast.Call):
            name = _attr_name(n.func)
            short = name.split(".")[-1]
            if name.startswith(("tl.", "triton.language.")) and short == "arange":
                found.add("arange(" + ", ".join(ast.unparse(a) for a in n.args) + ")")
            elif name.startswith(("tl.", "triton.language.")) and short in _BLOCK_MAKERS:
                found.add("block")
            elif isinstance(n.func, ast.Name) and n.func.id in helpers:
                found.add(_UNKNOWN)
    return frozenset(found)


def _targets(node) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
        return [node.target]
    return []


def _block_roots(fn: ast.FunctionDef, helpers: set[str]) -> dict[str, frozenset[str]]:
    """Every name of `fn` that holds a block-shaped value, with its roots (through assignments,
    loop-carried updates included: iterated until nothing changes)."""
    roots: dict[str, frozenset[str]] = {}
    if fn.name in helpers:  # called from another function: its arguments may be blocks
        for arg in fn.args.args + fn.args.kwonlyargs:
            roots[arg.arg] = frozenset({_UNKNOWN})
    assignments = [n for n in ast.walk(fn) if _targets(n)]
    for _ in range(len(assignments) + 1):
        changed = False
        for node in assignments:
            value = node.iter if isinstance(node, ast.For) else getattr(node, "value", None)
            if value is None:
                continue
            new = _expr_roots(value, roots, helpers)
            if isinstance(node, ast.AugAssign):
                new |= _expr_roots(node.target, roots, helpers)
            if not new:
                continue
            for target in _targets(node):
                for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                    if not new <= roots.get(name, frozenset()):
                        roots[name] = roots.get(name, frozenset()) | new
                        changed = True
        if not changed:
            break
    return roots


def _tiled(roots: frozenset[str]) -> set[str]:
    """The tl.arange roots that tile a dimension by a BLOCK constant (tl.arange(0, HEAD_DIM) spans
    a whole dimension and needs no mask)."""
    return {r for r in roots if r.startswith("arange(") and "BLOCK" in r.upper()}


def _loaded_names(fn: ast.FunctionDef) -> set[str]:
    """Names whose value derives from a tl.load (through assignments, iterated to a fixed point)."""
    assignments = [n for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign)]
    names: set[str] = set()
    for _ in range(len(assignments) + 1):
        before = len(names)
        for node in assignments:
            value = node.value
            loads = any(_attr_name(c.func) == "tl.load" for c in ast.walk(value) if isinstance(c, ast.Call))
            if loads or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if len(names) == before:
            break
    return names


def gather_read_modify_writes(tree: ast.Module) -> list[int]:
    """Lines of tl.store calls whose pointer a tl.load of the same function also reads, where that
    pointer is computed from loaded values (a data-dependent address), in a function with no atomic."""
    found = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call)]
        if any(_attr_name(c.func).startswith("tl.atomic_") for c in calls):
            continue
        loaded = _loaded_names(fn)
        read = {ast.dump(c.args[0]) for c in calls if _attr_name(c.func) == "tl.load" and c.args}
        for c in calls:
            if _attr_name(c.func) != "tl.store" or not c.args or ast.dump(c.args[0]) not in read:
                continue
            if any(isinstance(n, ast.Name) and n.id in loaded for n in ast.walk(c.args[0])):
                found.append(c.lineno)
    return found


def _memory_accesses(tree: ast.Module, facts: SourceFacts) -> None:
    """Unmasked (and partially masked) tl.load / tl.store of a block of pointers. A scalar access
    (`tl.store(out_ptr + row, acc)`, `tl.load(bias_ptr)`) touches one element and needs no mask."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    defined = {fn.name for fn in functions}
    helpers = {
        n.func.id
        for fn in functions
        for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in defined
    }
    seen: set[tuple[int, int]] = set()
    for fn in functions:
        roots = _block_roots(fn, helpers)
        varying = _varying_names(fn, helpers)
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            kind = _attr_name(call.func)
            if kind.startswith(("tl.atomic_", "triton.language.atomic_")) and call.args:
                masked = _kw(call, "mask") is not None or len(call.args) > 2
                if not masked and _expr_roots(call.args[0], roots, helpers):
                    facts.unmasked_atomics.append(call.lineno)
                continue
            if kind not in ("tl.load", "tl.store") or not call.args or (call.lineno, call.col_offset) in seen:
                continue
            seen.add((call.lineno, call.col_offset))
            pointer = _expr_roots(call.args[0], roots, helpers)
            if not pointer or _kw(call, "boundary_check") is not None:
                continue
            position = 1 if kind == "tl.load" else 2
            mask = _kw(call, "mask") or (call.args[position] if len(call.args) > position else None)
            load = kind == "tl.load"
            if mask is None:
                if not _fixed_table(call.args[0], pointer, varying):
                    (facts.unmasked_loads if load else facts.unmasked_stores).append(call.lineno)
                continue
            bounded = _expr_roots(mask, roots, helpers)
            if _UNKNOWN not in bounded and _tiled(pointer) - bounded:
                (facts.partially_masked_loads if load else facts.partially_masked_stores).append(call.lineno)


def _varying_names(fn: ast.FunctionDef, helpers: set[str]) -> set[str]:
    """The names of `fn` whose value changes between programs or loop steps: made from tl.program_id or a loop's
    target (through assignments, to a fixed point); a helper's parameters too (its callers may pass either)."""
    varying = {a.arg for a in fn.args.args + fn.args.kwonlyargs} if fn.name in helpers else set()
    varying |= {
        n.id for f in ast.walk(fn) if isinstance(f, ast.For) for n in ast.walk(f.target) if isinstance(n, ast.Name)
    }
    assignments = [n for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign)]
    for _ in range(len(assignments) + 1):
        before = len(varying)
        for node in assignments:
            if _varies(node.value, varying):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                varying |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if len(varying) == before:
            break
    return varying


def _fixed_table(address: ast.expr, roots: frozenset[str], varying: set[str]) -> bool:
    """The address is the same block in every program and loop step, of a size written as a number
    (`q_ptr + k[:, None] * 8 + k[None, :]` with `k = tl.arange(0, 8)`: a constant table): it has no partial last
    block that a mask would keep in bounds."""
    literal = all(re.fullmatch(r"arange\(\d+, \d+\)", r) for r in roots)
    return literal and not _varies(address, varying)


def _varies(node: ast.AST, varying: set[str]) -> bool:
    """`node` reads a name of `varying` or a program id."""
    return any(
        (isinstance(n, ast.Name) and n.id in varying)
        or (isinstance(n, ast.Call) and _attr_name(n.func).endswith("program_id"))
        for n in ast.walk(node)
    )


def assignment_line(source: str, name: str, line: int) -> int | None:
    """The last line before `line` that assigns `name` in the function holding `line` (None: a parameter, or
    not assigned there)."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return None
    holders = [
        f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.lineno <= line <= (f.end_lineno or f.lineno)
    ]
    if not holders:
        return None
    found = [
        node.lineno
        for node in ast.walk(holders[-1])
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.For)
        and node.lineno < line
        and any(isinstance(t, ast.Name) and t.id == name for target in _targets(node) for t in ast.walk(target))
    ]
    return max(found, default=None)


def _boolean(method: ast.expr) -> bool:
    """`(a != b).to(tl.int32)`, `mask.to(...)` of a comparison: the cast's receiver is a comparison or a boolean
    combination of them, whose values are 0 and 1 (no rounding toward zero can happen there)."""
    receiver = method.value if isinstance(method, ast.Attribute) else None
    if isinstance(receiver, ast.Compare | ast.BoolOp):
        return True
    return (
        isinstance(receiver, ast.BinOp)
        and isinstance(receiver.op, ast.BitAnd | ast.BitOr)
        and all(isinstance(side, ast.Compare) for side in (receiver.left, receiver.right))
    )
