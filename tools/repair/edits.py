"""Single-site edits of a candidate for the repair search: the slips a kernel author makes, inverted.

Each operator finds the sites of one construct in the candidate (inside its @triton.jit kernels, or
in the host code that launches them) and proposes the few rewrites a slip of that kind would need
undone: `//` <-> `%`, `<` <-> `<=`, a bound or offset +-1, one index or size name for another of the
same role, another program-id axis, another broadcast axis, `+` <-> `-`, the operands of a
non-commutative operation swapped, padding lanes kept out of a reduction or a running min / max, another
padding value, two loaded values combined before their cast to fp32, a stride moved to the neighbouring
index term, a size or integral constant +-1 in a
formula (kernel or host), tl.abs in a max, two adjacent launch arguments swapped, another `.stride(d)`, a launch
argument the kernel uses as a tensor's stride but written as a size or a number given that tensor's `.stride(d)`, a sign
put on or taken off a math function's argument, a constant factor dropped, an index divided by a size before its
`%`, the stored value divided or multiplied by a scalar parameter (only where the output is the golden scaled),
a value that lost a minus, a root, an exponential or a factor of two (tools/repair/formula_edits.py), a module's
float constant +-1, another pointer parameter, `and` <-> `or` (`&` <-> `|`), the modulus added before a `%` of a
position that can go below 0, a divisor squared, a leading term's sign, a call's bare argument given its sibling's
math function, two numbers of a formula swapped, and an edit of code written the same way on several lines made on
all of them at once (a slip copied).
Nothing here decides which edit is right:
the search (tools/repair/search.py) re-runs each one and keeps only what passes.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from tools.repair import formula_edits, reach
from tools.repair.syntax import bare as _bare
from tools.repair.syntax import code as _code
from tools.repair.syntax import kwarg as _kwarg
from tools.repair.syntax import operand as _operand
from tools.repair.syntax import simple as _simple
from tools.repair.syntax import tl_attr as _tl


@dataclass(frozen=True)
class Edit:
    line: int  # 1-based line of the candidate the edit changes
    operator: str
    before: str  # the code that changes, as written
    after: str  # what it becomes
    fix: str  # the fix id this kind of edit belongs to
    source: str = ""  # the whole edited candidate
    also: tuple[int, ...] = ()  # other lines the same edit changes (code written the same way there)

    def describe(self) -> str:
        where = f"lines {', '.join(map(str, (self.line, *self.also)))}" if self.also else f"line {self.line}"
        return f"{where}: `{self.before}` -> `{self.after}`"


@dataclass(frozen=True)
class _Site:
    node: cst.CSTNode
    replacements: tuple[cst.CSTNode, ...]
    operator: str
    fix: str
    line_of: cst.CSTNode | None = None  # the node whose line the edit is reported at (default: `node`)
    texts: tuple[str, str] | None = None  # what the edit shows as before / after (default: the nodes' code)


#: The fix an edit stands for, by the role of the code it changes (_Collector._role): a bound's edit is a mask
#: or loop fix; in an address, an edit of how the index is decomposed (which stride, which coordinate, // or %)
#: is a layout fix and one that moves the offset (+-1, a sign) a formula fix; in a value, a formula fix.
ROLE_FIX = {"bound": "boundary_mask", "address": "fix_layout", "value": "fix_formula"}
DECOMPOSITION = {
    "transpose_index",
    "move_stride",
    "floordiv_mod",
    "add_mod",
    "name_swap",
    "program_axis",
    "swap_values",
    "broadcast_axis",
    "divide_index",
    "sibling_term",
    # an address made a sibling's but for one term or order (its strides, its coordinates): the four bugs of
    # heldout2-17 it undoes are all labelled layout_mismatch / fix_layout
    "sibling_offset",
    "address_constant",
    "stride_off_by_one",  # a row stride one off: which stride the decomposition uses
}


#: Operators whose fix is what they do, whatever the role of the code they change: padding lanes kept out (of a
#: value computed from a masked load too), a pointer's step given its stride.
OWN_FIX = frozenset({"padding", "pad_reduction", "pad_accumulate", "pad_value", "pointer_step", "pointer_swap"})


def _fix_for(operator: str, role: str) -> str:
    if role == "address" and operator not in DECOMPOSITION:
        return "fix_formula"
    return ROLE_FIX[role]


#: Identity elements of the reductions whose padding lanes must not count.
_IDENTITY = {"sum": "0.0", "max": 'float("-inf")', "min": 'float("inf")'}
#: Constants at least this large in a kernel's values may stand for an infinity (a max started at -1e4).
_SENTINEL_MAGNITUDE = 1e4
_PADDINGS = ("0.0", 'float("-inf")', 'float("inf")', "1.0")
#: The largest and smallest value of an integer dtype, as a tile's start (a running min from the maximum).
_INTEGER_STARTS = {
    f"tl.{name}": (str(top), f"-{top} - 1" if bottom else "0")
    for name, top, bottom in (
        ("int8", 127, True),
        ("int16", 32767, True),
        ("int32", 2147483647, True),
        ("int64", 9223372036854775807, True),
        ("uint8", 255, False),
        ("uint16", 65535, False),
        ("uint32", 4294967295, False),
    )
}
#: The same for an integer load (its padding written as an integer): a large magnitude stands for an infinity, small
#: enough that adding a few counts to it does not wrap an int32.
_INTEGER_PADDINGS = ("0", "-(1 << 30)", "1 << 30", "1")
#: Math functions one argument of a call may have and its sibling lack (`tl.abs(a), b`).
_SIBLING_FUNCTIONS = ("abs", "sqrt", "exp", "log", "exp2", "log2")
#: The numbers of a formula whose pairs are swapped (the first ones: a formula rarely has more).
_SWAP_LITERALS_MAX = 6
#: The dimensions a stride argument's edit offers (`x.stride(0)` .. `x.stride(3)`): a tensor of fewer fails at once.
_STRIDE_DIMS = 4
#: Math functions whose argument's sign is a common slip (`exp(g)` for `exp(-g)` in a sigmoid).
_SIGNED_ARGUMENT = ("exp", "exp2", "log", "log2", "sin", "cos", "tanh", "sigmoid", "sqrt", "log1p", "expm1")


def _is_jit(decorator: cst.Decorator) -> bool:
    d = decorator.decorator
    d = d.func if isinstance(d, cst.Call) else d
    return m.matches(d, m.Attribute(value=m.Name("triton"), attr=m.Name("jit")) | m.Name("jit"))


def _kernels(module: cst.Module) -> list[cst.FunctionDef]:
    return [
        node
        for node in m.findall(module, m.FunctionDef())
        if isinstance(node, cst.FunctionDef) and any(_is_jit(d) for d in node.decorators)
    ]


def _assigned_names(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Local name -> the expression first assigned to it."""
    found: dict[str, cst.BaseExpression] = {}
    for node in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
        if isinstance(node, cst.Assign):
            target = node.targets[0].target
            if isinstance(target, cst.Name):
                found.setdefault(target.value, node.value)
    return found


def _mentions(expr: cst.CSTNode, *calls: str) -> bool:
    return any(m.findall(expr, m.Call(func=_tl(c))) for c in calls)


def _base(expr: cst.BaseExpression) -> str | None:
    """The leftmost operand of an address `p + a + b`: the pointer, when it is a name."""
    while isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add | cst.Subtract):
        expr = expr.left
    return expr.value if isinstance(expr, cst.Name) else None


def _terms(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The summands of `a + b + c` after the leftmost (the pointer of an address), left to right."""
    terms: list[cst.BaseExpression] = []
    while isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        terms.insert(0, expr.right)
        expr = expr.left
    return terms


def _addresses(fn: cst.FunctionDef, pointers: set[str]) -> list[tuple[cst.BinaryOperation, frozenset[str]]]:
    """Every whole address sum of the kernel, `x_ptr + row * N + cols` (not its part `x_ptr + row * N`), with its
    terms as written."""
    sums = [
        node
        for node in m.findall(fn, m.BinaryOperation(operator=m.Add()))
        if isinstance(node, cst.BinaryOperation) and _base(node) in pointers and not _subtracts(node)
    ]
    parts = {id(node.left) for node in sums}
    return [(node, frozenset(_code(t) for t in _terms(node))) for node in sums if id(node) not in parts]


def _operands(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The direct operands of a sum or product (`c0 + tl.arange(0, B)`) or the arguments of a call
    (`tl.maximum(m, tl.max(x, axis=0))`)."""
    if isinstance(expr, cst.BinaryOperation):
        return [expr.left, expr.right]
    return [a.value for a in expr.args] if isinstance(expr, cst.Call) else []


_ARITHMETIC = cst.Add | cst.Subtract | cst.Multiply | cst.Divide


def _arithmetic_leaves(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a chain of + - * / (`x_ptr + row * stride` -> x_ptr, row, stride), not entering calls."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
        return _arithmetic_leaves(expr.left) + _arithmetic_leaves(expr.right)
    return [expr]


def _names_in_addresses(fn: cst.FunctionDef) -> set[str]:
    """The names a kernel's address expressions (and the locals they are made of) read."""
    assigned = _assigned_names(fn)
    found: set[str] = set()
    for call in m.findall(fn, m.Call(func=_tl("load") | _tl("store") | _tl("atomic_add"))):
        if isinstance(call, cst.Call) and call.args:
            found |= _names(call.args[0].value)
    todo = list(found)
    while todo:
        for name in _names(assigned[n]) if (n := todo.pop()) in assigned else ():
            if name not in found:
                found.add(name)
                todo.append(name)
    return found


def _leftmost(expr: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add | cst.Subtract):
        expr = expr.left
    return expr


def _subtracts(expr: cst.BaseExpression) -> bool:
    while isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add | cst.Subtract):
        if isinstance(expr.operator, cst.Subtract):
            return True
        expr = expr.left
    return False


def _pointers(fn: cst.FunctionDef) -> set[str]:
    """Pointer parameters and the locals made from them (x_row = x_ptr + row * L)."""
    assigned = _assigned_names(fn)
    found: set[str] = set()
    for call in m.findall(fn, m.Call(func=_tl("load") | _tl("store") | _tl("atomic_add"))):
        if isinstance(call, cst.Call) and call.args:
            name = _base(call.args[0].value)
            while name is not None and name not in found:
                found.add(name)
                name = _base(assigned[name]) if name in assigned else None
    return found


def _integer_indices(fn: cst.FunctionDef, positions: set[str]) -> set[str]:
    """The index names made by integer arithmetic alone (program ids, aranges, loop variables, sizes, `+ - * // %`,
    `[:, None]`): not values that went through a float literal, a comparison, a cast or a math function."""
    assigned = _assigned_names(fn)
    known = _param_names(fn) | {"tl", "program_id", "arange", "None"}
    found = {n for n in _loop_names(fn) if n in positions}
    changed = True
    while changed:
        changed = False
        for name, expr in assigned.items():
            if name in found or name not in positions:
                continue
            calls = m.findall(expr, m.Call())
            integral = all(m.matches(c, m.Call(func=_tl("program_id") | _tl("arange"))) for c in calls)
            names = _names(expr)
            if integral and not m.findall(expr, m.Float() | m.Comparison()) and names <= found | known:
                found.add(name)
                changed = True
    return found


def _use_counts(fn: cst.FunctionDef) -> dict[str, int]:
    """How many times each name is read in the kernel (every occurrence but those assigned to)."""
    # the names assigned to (`acc = ...`; an augmented `acc += v` reads its target as it assigns it: still a read)
    targets = [t.target for t in m.findall(fn, m.AssignTarget() | m.AnnAssign())]  # type: ignore[attr-defined]
    assigned = Counter(t.value for t in targets if isinstance(t, cst.Name))
    read = Counter(n.value for n in m.findall(fn.body, m.Name()) if isinstance(n, cst.Name))
    return {name: count - assigned[name] for name, count in read.items()}


def _loop_names(fn: cst.FunctionDef) -> set[str]:
    return {
        node.target.value
        for node in m.findall(fn, m.For(target=m.Name()))
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name)
    }


def _index_names(fn: cst.FunctionDef, pointers: set[str]) -> set[str]:
    """Locals computed from tl.arange, program ids or loop variables (offsets, rows, channels), not masks."""
    assigned = _assigned_names(fn)
    found = _loop_names(fn)
    changed = True
    while changed:
        changed = False
        for name, expr in assigned.items():
            if name in found or name in pointers or m.findall(expr, m.Comparison()) or _mentions(expr, "load", "where"):
                continue  # a pointer, a mask, or a value
            if _float_valued(expr):
                continue  # a position made a coordinate (`-1 + (offs % W).to(tl.float32) * step`): a value
            used = {n.value for n in m.findall(expr, m.Name()) if isinstance(n, cst.Name)}
            if _mentions(expr, "arange", "program_id") or used & found:
                found.add(name)
                changed = True
    return found


def _float_valued(expr: cst.BaseExpression) -> bool:
    """`expr` computes a floating value: it holds a float literal or casts to a floating type."""
    floating = m.Attribute(value=m.Name("tl"), attr=m.Name(value=m.MatchIfTrue(lambda n: "float" in n)))
    return bool(
        m.findall(expr, m.Float())
        or m.findall(expr, m.Call(func=m.Attribute(attr=m.Name("to")), args=[m.Arg(floating), m.ZeroOrMore()]))
    )


def _vector_names(fn: cst.FunctionDef) -> set[str]:
    """Locals that hold a tile (computed from tl.arange, directly or through other such locals)."""
    assigned = _assigned_names(fn)
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, expr in assigned.items():
            used = {n.value for n in m.findall(expr, m.Name()) if isinstance(n, cst.Name)}
            if name not in found and (_mentions(expr, "arange") or used & found):
                found.add(name)
                changed = True
    return found


def _scalar_loads(fn: cst.FunctionDef) -> set[str]:
    """Locals loaded from one address (`length = tl.load(len_ptr + b)`): a size or an offset read from memory
    that a slip confuses with a size parameter (`s < CACHE_LEN` for `s < length`)."""
    vectors = _vector_names(fn)
    found = set()
    for name, expr in _assigned_names(fn).items():
        root = _root_call(expr)
        if not (isinstance(root, cst.Call) and m.matches(root.func, _tl("load")) and root.args):
            continue
        used = {n.value for n in m.findall(root.args[0].value, m.Name()) if isinstance(n, cst.Name)}
        if not used & vectors and not _mentions(root.args[0].value, "arange"):
            found.add(name)
    return found


def _roles(fn: cst.FunctionDef, pointers: set[str]) -> list[set[str]]:
    """Groups of names that one slip can confuse: index values (from tl.arange, program ids, loops)
    and the scalar sizes (parameters: sizes, strides, constexpr blocks; and sizes loaded from memory)."""
    params = [p.name.value for p in fn.params.params]
    scalars = {p for p in params if p not in pointers} | _scalar_loads(fn)
    return [g for g in (_index_names(fn, pointers), scalars) if len(g) >= 2]


class _Collector(cst.CSTVisitor):
    """Every site of every operator, in one walk of a module."""

    METADATA_DEPENDENCIES = (PositionProvider, ParentNodeProvider)

    def __init__(self, kernels: list[cst.FunctionDef], strides: dict | None = None):
        super().__init__()
        self.sites: list[_Site] = []
        self._strides = strides or {}  # per kernel: its parameters, and those its addresses use as strides
        self._kernels = {id(k): k for k in kernels}
        self._roles: list[set[str]] = []
        self._pointers: set[str] = set()
        self._pointer_swaps: list[tuple[cst.Name, list[cst.Name]]] = []  # a kernel's pointer uses, each with the others
        self._pointer_params: list[str] = []  # the kernel's pointer parameters and those it never reads, in order
        self._masks: set[str] = set()
        self._positions: set[str] = set()
        self._integers: set[str] = set()
        self._in_kernel = 0
        self._kernel: cst.FunctionDef | None = None
        self._constexprs: set[str] = set()
        self._in_forward = 0
        self._constants: list[str] = []  # the module's numeric constants (`R = 16`, `ALPHA = 32.0`)
        self._sizes: list[str] = []  # forward's sizes read from its tensors (`B, S, D = x.shape`, `N = x.numel()`)
        self._tensors: set[str] = set()
        self._loaded: dict[str, str] = {}  # a value loaded under a mask -> that mask, as written
        self._raw: set[str] = set()  # values loaded as stored (no .to(...) cast): possibly fp16 / bf16
        self._narrow_ints: set[str] = set()  # locals cast to int32
        self._address_names: set[str] = set()  # names the kernel's addresses read, directly or through locals
        self._assigned: dict[str, cst.BaseExpression] = {}  # a kernel's local name -> its first value
        self._loops: set[str] = set()  # a kernel's loop variables
        self._uses: dict[str, int] = {}  # a kernel's name -> how many times it is read
        self._unused: list[str] = []  # scalar parameters the kernel never reads
        self._unused_loads: dict[str, int] = {}  # values the kernel loads and never reads -> the load's line
        self._twins: dict[str, set[str]] = {}  # a value -> the values first computed by an expression of its shape
        self._derived: dict[str, list[str]] = {}  # a name -> the locals made from it (its guarded or offset forms)

    def _add(self, node: cst.CSTNode, replacements: list, operator: str, fix: str) -> None:
        options = tuple(r for r in replacements if r is not None)
        if options:
            # host edits, padding and dtypes keep their own fix; the rest is named by the role of what they change
            role_based = self._in_kernel and fix in ROLE_FIX.values() and operator not in OWN_FIX
            self.sites.append(
                _Site(node, options, operator, _fix_for(operator, self._role(node)) if role_based else fix)
            )

    def _role(self, node: cst.CSTNode, positions_are_indices: bool = True) -> str:
        """What the edited code does in the kernel: a bound (a mask's comparison, a loop's range, the grid), an
        address (a load's or store's pointer, an index it is made of), or a value. It names the edit's fix.
        `positions_are_indices=False`: a local computed from positions (an angle from `tl.arange`) is a value."""
        child, parent = None, node
        while parent is not None and not isinstance(parent, cst.SimpleStatementLine | cst.FunctionDef):
            if isinstance(parent, cst.Arg) and parent.keyword is not None and parent.keyword.value == "mask":
                return "bound"
            if isinstance(parent, cst.Comparison) and self._against_a_size(parent):
                return "bound"  # offs < n, t < length: a comparison of two indices (c > r) is the formula's
            if isinstance(parent, cst.Call):
                if m.matches(parent.func, m.Name("range") | _tl("static_range") | m.Attribute(attr=m.Name("cdiv"))):
                    return "bound"
                memory = m.matches(parent.func, _tl("load") | _tl("store") | _tl("atomic_add"))
                if memory and parent.args and child is parent.args[0]:
                    return "address"
            if isinstance(parent, cst.Assign) and m.matches(parent.targets[0].target, m.Name()):
                name = parent.targets[0].target.value  # type: ignore[attr-defined]
                if positions_are_indices and any(name in g for g in self._roles[:1]) and name not in self._params():
                    return "address"
            child, parent = parent, self.get_metadata(ParentNodeProvider, parent, None)
        if isinstance(node, cst.For):
            return "bound"
        return "value"

    def _against_a_size(self, comparison: cst.Comparison) -> bool:
        """A position compared with something that is no position (a size, a length the host gave or the kernel
        loaded, a diagonal offset, a constant): `offs < n`, `t < length`, `pos >= 0`. Two positions compared
        (`c > r`) make part of a formula, not a bound."""
        placed = self._placed_sides(comparison)
        return any(placed) and not all(placed)

    def _placed_sides(self, comparison: cst.Comparison) -> list[bool]:
        """Per side of the comparison, whether it reads a position (a lane, a row, a loop step)."""
        sides = [comparison.left, *(c.comparator for c in comparison.comparisons)]
        return [
            bool({n.value for n in m.findall(side, m.Name()) if isinstance(n, cst.Name)} & self._positions)
            for side in sides
        ]

    def _params(self) -> set[str]:
        return _param_names(self._kernel)

    # -- scope --------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if id(node) in self._kernels:
            self._in_kernel += 1
            self._kernel = node
            self._pointers = _pointers(node)
            read = _names(node.body)  # type: ignore[arg-type]
            # a parameter the body never reads may be the pointer a copied line should have used
            self._pointer_params = [
                p.name.value for p in node.params.params if p.name.value in self._pointers or p.name.value not in read
            ]
            self._roles = _roles(node, self._pointers)
            self._constexprs = _constexpr_params(node)
            self._masks = _mask_names(node)
            self._positions = _index_names(node, self._pointers)
            self._integers = _integer_indices(node, self._positions)
            self._loaded = _masked_loads(node)
            self._loops = _loop_names(node)
            self._uses = _use_counts(node)
            self._raw = _raw_loads(node)
            self._narrow_ints = _narrow_integers(node)
            self._address_names = _names_in_addresses(node)
            self._assigned = _assigned_names(node)
            self._unused = _unused_scalars(node, self._pointers)
            self._unused_loads = self._loads_never_read(node)
            self._twins = self._value_twins(node)
            self._derived = self._derived_names(node)
            self._sibling_terms(node)
        elif node.name.value == "forward":
            self._in_forward += 1
            self._tensors = _forward_tensors(node)
            self._sizes = _forward_sizes(node)
            self._host_assigned: dict[str, cst.BaseExpression] = {}
            self._factored: set[int] = set()

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if id(original_node) in self._kernels:
            # after the body's operators: an edit they make too (a transposed index) keeps their name
            self._sibling_offsets(original_node)
            self._sibling_value_terms(original_node)
            self._shift_added_back(original_node)
            self._load_from_output(original_node)
            for name, others in self._pointer_swaps:
                self._add(name, others, "pointer_swap", "fix_layout")
            self._pointer_swaps = []
            self._in_kernel -= 1
        elif original_node.name.value == "forward":
            self._in_forward -= 1

    # -- kernel operators ---------------------------------------------------------------------------
    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not self._in_kernel:
            if isinstance(node.operator, cst.FloorDivide) and self._in_forward:  # a grid that drops the last tile
                self._add(
                    node,
                    [cst.parse_expression(f"triton.cdiv({_code(node.left)}, {_code(node.right)})")],
                    "grid_cdiv",
                    "boundary_mask",
                )
            if isinstance(node.operator, cst.Divide) and self._in_forward:  # K / span for (K - 1) / span
                for operand in (node.left, node.right):
                    self._size_off_by_one(operand)
            return
        op = node.operator
        if isinstance(op, cst.Divide | cst.Multiply) and not self._address(node) and self._role(node) == "value":
            for operand in (node.left, node.right):  # total / N for total / (N - 1), x / 128.0 for x / 127.0
                self._size_off_by_one(operand)
        if isinstance(op, cst.Add):
            self._move_stride(node)
        if isinstance(op, cst.Add | cst.Subtract | cst.Multiply) and self._role(node) == "value":
            self._upcast(node)
        if isinstance(op, cst.Multiply) and self._in_kernel:
            self._integer_upcast(node)
            self._packed_stride(node)
            self._stride_off_by_one(node)
        roots = _tl("sqrt") | _tl("rsqrt") | _tl("log")
        if isinstance(op, cst.Divide) and self._in_kernel and not m.matches(node.right, m.Call(func=roots)):
            self._unused_guard(node, node.right, lambda guarded: node.with_changes(right=_parenthesized(guarded)))
        if isinstance(op, cst.Multiply | cst.Divide) and not self._address(node):
            self._drop_factor(node)
        self._shift_division(node)
        if isinstance(op, cst.FloorDivide):
            self._add(node, [node.with_changes(operator=cst.Modulo())], "floordiv_mod", "fix_layout")
            self._ceil_div(node)
        elif isinstance(op, cst.Modulo):
            self._add(node, [node.with_changes(operator=cst.FloorDivide())], "floordiv_mod", "fix_layout")
            self._divide_index(node)
            self._nonnegative_mod(node)
        if isinstance(op, cst.BitAnd | cst.BitOr) and (
            any(m.matches(_bare(x), m.Comparison()) for x in (node.left, node.right)) or self._in_mask(node)
        ):  # conditions combined the other way: of comparisons, or in a mask (`inb | roi` for `inb & roi`)
            other = cst.BitOr() if isinstance(op, cst.BitAnd) else cst.BitAnd()
            self._add(node, [node.with_changes(operator=other)], "connective", "fix_formula")
        if isinstance(op, cst.Add):
            self._program_stride(node)
        if isinstance(op, cst.Add | cst.Subtract) and _number(node.right) and not self._address(node):
            self._drop_term(node)
        if isinstance(op, cst.BitAnd) and not self._in_mask(node):
            self._power_of_two_mask(node)
        if not self._address(node) and self._role(node) == "value":
            self._regroup(node)
            self._lost_factor_or_root(node)
        if isinstance(op, cst.Add | cst.Subtract) and m.matches(node.right, m.Integer("1")):
            self._add(node, [node.left], "off_by_one", "boundary_mask")
        if isinstance(op, cst.Multiply):  # x * mask.to(float): NaN * 0 is NaN where tl.where gives 0
            for value, mask in ((node.left, node.right), (node.right, node.left)):
                if m.matches(mask, m.Call(func=m.Attribute(value=m.Name(), attr=m.Name("to")))):
                    flag = _code(mask.func.value)  # type: ignore[attr-defined]
                    self._add(
                        node,
                        [cst.parse_expression(f"tl.where({flag}, {_code(value)}, 0.0)")],
                        "mask_where",
                        "nan_propagation",
                    )
        if isinstance(op, cst.BitAnd) and self._in_mask(node):  # a mask with one condition too many
            self._add(node, [_bare(node.left), _bare(node.right)], "drop_conjunct", "boundary_mask")
        if isinstance(op, cst.Add) and isinstance(node.left, cst.BinaryOperation):
            self._transposed(node)  # (move_stride above covers subscripted terms and literal strides)
        if self._address(node):
            # p + a: flipping the pointer's own term only reads out of bounds; a later offset's sign may be the slip
            if isinstance(node.left, cst.BinaryOperation) and isinstance(op, cst.Add | cst.Subtract):
                flipped = cst.Subtract() if isinstance(op, cst.Add) else cst.Add()
                self._add(node, [node.with_changes(operator=flipped)], "sign", "fix_layout")
            return
        if isinstance(op, cst.Add):
            self._add(node, [node.with_changes(operator=cst.Subtract())], "sign", "fix_formula")
        elif isinstance(op, cst.Subtract):
            swapped = node.with_changes(left=node.right, right=node.left)
            self._add(node, [node.with_changes(operator=cst.Add()), _paren(swapped)], "sign", "fix_formula")
        elif isinstance(op, cst.Divide):
            self._add(node, [_paren(node.with_changes(left=node.right, right=node.left))], "operands", "fix_formula")

    def _nonnegative_mod(self, node: cst.BinaryOperation) -> None:
        """`(r + dy) % H` for `(r + dy + H) % H`: Triton's `%` keeps the sign of its left operand (C's remainder, not
        Python's), so a wrap-around of a position that can step below 0 needs the modulus added first."""
        left = _bare(node.left)
        if not m.matches(left, m.BinaryOperation(operator=m.Add() | m.Subtract())):
            return
        modulus = _operand(node.right)
        self._add(
            node, [cst.parse_expression(f"({_code(left)} + {modulus}) % {modulus}")], "nonnegative_mod", "fix_formula"
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """`and` for `or` (and the other way round) in a condition the kernel tests."""
        if self._in_kernel:
            other = cst.Or() if isinstance(node.operator, cst.And) else cst.And()
            self._add(node, [node.with_changes(operator=other)], "connective", "fix_formula")

    def _ceil_div(self, node: cst.BinaryOperation) -> None:
        """A quotient rounded down where it must round up (a window's end, a count of blocks)."""
        if isinstance(node.right, cst.Name | cst.Integer):
            divisor = _code(node.right)
            up = cst.parse_expression(f"({_summand(node.left)} + {divisor} - 1) // {divisor}")
            self._add(node, [up], "ceil_div", "fix_formula")

    def _program_stride(self, node: cst.BinaryOperation) -> None:
        """A program id added to its lanes without its block's stride (`pid + tl.arange(0, BLOCK)`)."""
        for pid, lanes in ((node.left, node.right), (node.right, node.left)):
            is_pid = m.matches(pid, m.Call(func=_tl("program_id"))) or (
                isinstance(pid, cst.Name)
                and m.matches(self._assigned.get(pid.value, cst.Name("_")), m.Call(func=_tl("program_id")))
            )
            if is_pid and _mentions(lanes, "arange"):
                blocks = sorted(self._constexprs)
                self._add(
                    pid, [cst.parse_expression(f"{_code(pid)} * {b}") for b in blocks], "program_stride", "fix_layout"
                )

    def _size_off_by_one(self, operand: cst.BaseExpression) -> None:
        """A size or count off by one in a formula: a scalar (a kernel's size parameter, a host name) or an integral
        constant of at least 2, as a factor or divisor."""
        if isinstance(operand, cst.Name):
            if self._in_kernel and operand.value not in (self._params() - self._pointers):
                return
            self._add(operand, [_paren(_plus(operand, d)) for d in (-1, 1)], "size_off_by_one", "fix_formula")  # type: ignore[arg-type]
        elif isinstance(operand, cst.Integer | cst.Float):
            value = float(operand.evaluated_value)  # hex, octal, underscores: as Python reads them
            if value >= 2 and value == int(value):
                spell = (lambda v: f"{v}.0") if isinstance(operand, cst.Float) else str
                options = [cst.parse_expression(spell(int(value) + d)) for d in (-1, 1)]
                self._add(operand, options, "size_off_by_one", "fix_formula")

    def _stride_off_by_one(self, node: cst.BinaryOperation) -> None:
        """A row stride one off in an address (`rows * L` for `rows * (L - 1)`: the row length of an output with
        one element fewer per row, a difference, a valid window): the size parameter it multiplies, plus or minus
        one."""
        if self._role(node) != "address":
            return
        for operand in (node.left, node.right):
            if isinstance(operand, cst.Name) and operand.value in self._size_params():
                self._add(operand, [_paren(_plus(operand, d)) for d in (-1, 1)], "stride_off_by_one", "fix_layout")  # type: ignore[arg-type]

    def _drop_factor(self, node: cst.BinaryOperation) -> None:
        """A constant factor or divisor too many (`x / (2 * HALF)` for `x / HALF`, `0.5 * y` for `y`)."""
        options = []
        if _number(node.right):
            options.append(node.left)
        if isinstance(node.operator, cst.Multiply) and _number(node.left):
            options.append(node.right)
        self._add(
            node,
            [_paren(o) if isinstance(o, cst.BinaryOperation) else o for o in options],
            "drop_factor",
            "fix_formula",
        )

    def _drop_term(self, node: cst.BinaryOperation) -> None:
        """A constant term too many (`(oh + 0.5) * H` for `oh * H`, a half-pixel offset where none belongs)."""
        left = node.left
        self._add(node, [_paren(left) if isinstance(left, cst.BinaryOperation) else left], "drop_term", "fix_formula")

    def _index_like(self) -> set[str]:
        """The kernel's names that hold indices, masks or pointers (never a formula's value): those made by integer
        arithmetic alone or read by an address (a position cast to float, an angle or a phase, is a value)."""
        return self._integers | self._masks | self._pointers | self._address_names | self._narrow_ints

    def _formula_value(self, node: cst.CSTNode) -> bool:
        """`node` computes a value (not a bound, an address or a mask) with no integer-only operator in it."""
        if self._role(node, positions_are_indices=False) != "value" or self._in_mask(node):
            return False
        assigned = self._assigned_target(node)
        if assigned is not None and assigned in self._index_like():
            return False
        operations = m.findall(node, m.BinaryOperation())
        return not any(isinstance(b.operator, _INTEGER_ONLY) for b in operations)  # type: ignore[attr-defined]

    def _assigned_target(self, node: cst.CSTNode) -> str | None:
        """The name the statement `node` is part of assigns, if it assigns one."""
        parent = self.get_metadata(ParentNodeProvider, node, None)
        while parent is not None and not isinstance(parent, cst.SimpleStatementLine | cst.FunctionDef):
            if isinstance(parent, cst.Assign | cst.AugAssign):
                target = parent.targets[0].target if isinstance(parent, cst.Assign) else parent.target
                return target.value if isinstance(target, cst.Name) else None
            parent = self.get_metadata(ParentNodeProvider, parent, None)
        return None

    def _lost_construct(self, value: cst.BaseExpression) -> None:
        """An assigned or stored value that lost a sign, a root or an exponential, or a factor of two
        (tools/repair/formula_edits.py)."""
        if formula_edits.structural(value) or not self._formula_value(value) or m.matches(value, m.Comparison()):
            return  # a comparison is a flag: no sign, root or factor of it means anything
        self._add(value, formula_edits.wrapped(value), "wrap_value", "fix_formula")
        self._add(value, formula_edits.scaled(value), "scale_value", "fix_formula")

    def _lost_factor_or_root(self, node: cst.BinaryOperation) -> None:
        """A summand that lost a factor of two (`rate + v * v` for `rate + 0.5 * v * v`); an operand of a product
        or quotient that lost its root (`v * t` for `v * tl.sqrt(t)`)."""
        if not self._formula_value(node):
            return
        if isinstance(node.operator, cst.Add | cst.Subtract):
            first = [] if _is(node.left, cst.Add) or _is(node.left, cst.Subtract) else [node.left]
            for summand in (*first, node.right):
                if not isinstance(summand, cst.Float | cst.Integer):
                    self._add(summand, formula_edits.scaled(summand), "scale_value", "fix_formula")
            for summand in first:  # the leading term's sign (a later term's is the `+` <-> `-` of `sign`)
                self._add(summand, formula_edits.negated(summand), "negate_term", "fix_formula")
        elif isinstance(node.operator, cst.Multiply | cst.Divide):
            for operand in (node.left, node.right):
                self._add(operand, formula_edits.rooted(operand), "root_operand", "fix_formula")
            if isinstance(node.operator, cst.Divide):  # x / n for x / (n * n): a norm's square, an area
                self._add(node.right, formula_edits.squared(node.right), "square_divisor", "fix_formula")

    def _power_of_two_mask(self, node: cst.BinaryOperation) -> None:
        """`h & (N - 1)`, the power-of-two shortcut, for `h % N` where N need not be a power of two."""
        right = _bare(node.right)
        if isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.Subtract):
            if m.matches(right.right, m.Integer("1")):
                modulo = f"{_operand(node.left)} % {_operand(right.left)}"
                self._add(node, [cst.parse_expression(f"({modulo})")], "power_of_two_mask", "fix_formula")

    def _divide_index(self, node: cst.BinaryOperation) -> None:
        """`r % S` for `(r // H) % S`: a flat index reduced modulo a size without first dividing out the sizes
        below it (each scalar parameter as the divisor)."""
        if _number(node.left):
            return
        modulus = _code(node.right)
        divisors = sorted(self._params() - self._pointers - {modulus})
        edits = [node.with_changes(left=cst.parse_expression(f"({_code(_bare(node.left))} // {d})")) for d in divisors]
        self._add(node, edits, "divide_index", "fix_layout")

    def _scale_stored(self, store: cst.Call) -> None:
        """The stored value divided or multiplied by a scalar parameter (a dropped `/ beta`): where the values the
        stored one is made of are computed, then where it is, then at the store; offered only where the output is
        the golden times one constant (search.plan)."""
        value = _stored_value(store)
        if value is None or self._kernel is None:
            return
        params = self._params()
        scalars = sorted(params - self._pointers)
        stored = _names(value.value) - params
        made_of: set[str] = set()
        for assign in self._assignments(stored):
            made_of |= _names(assign.value)
        made_of -= params | self._pointers | self._masks | self._positions | stored
        sites = [a.value for a in sorted(self._assignments(made_of), key=lambda a: -self._line(a))]
        sites += [a.value for a in self._assignments(stored)] + [value.value]
        for expr in sites:
            text = _code(expr) if _simple(expr) else f"({_code(_bare(expr))})"
            edits = [cst.parse_expression(f"{text} {op} {p}") for p in scalars for op in ("/", "*")]
            self._add(expr, edits, "scale_param", "fix_formula")

    def _assignments(self, names: set[str] | frozenset[str]) -> list[cst.Assign]:
        """The kernel's assignments of these names (one name each)."""
        found = m.findall(self._kernel, m.Assign(targets=[m.AssignTarget(target=m.Name())])) if self._kernel else []
        return [a for a in found if isinstance(a, cst.Assign) and a.targets[0].target.value in names]  # type: ignore[attr-defined]

    def _line(self, node: cst.CSTNode) -> int:
        where = self.get_metadata(PositionProvider, node)
        assert isinstance(where, CodeRange)
        return where.start.line

    def _upcast(self, node: cst.BinaryOperation) -> None:
        """Two values loaded as stored (fp16 / bf16) combined before any cast: the difference or product made in
        the narrow dtype (where it overflows or loses digits), not in fp32."""
        names = [n.value for n in (node.left, node.right) if isinstance(n, cst.Name)]
        if len(names) == 2 and all(n in self._raw for n in names):
            widened = node.with_changes(
                left=cst.parse_expression(f"{names[0]}.to(tl.float32)"),
                right=cst.parse_expression(f"{names[1]}.to(tl.float32)"),
            )
            self._add(node, [widened], "upcast", "fp32_accumulator")

    def _integer_upcast(self, node: cst.BinaryOperation) -> None:
        """A product of an int32 index that outgrows 2^31 (a flat id `(iz * NY + iy) * NX + ix`), formed in
        int64 instead."""
        left = node.left
        if isinstance(left, cst.Name) and left.value in self._narrow_ints:
            widened = node.with_changes(left=cst.parse_expression(f"{left.value}.to(tl.int64)"))
            self._add(node, [widened], "int_upcast", "fp32_accumulator")

    def _packed_stride(self, node: cst.BinaryOperation) -> None:
        """A row stride of a packed tensor taken as one part's width (`rows * H` for `rows * (2 * H)` over a fused
        [a | b] projection, 3 * H over packed q, k, v)."""
        stride = node.right
        if isinstance(stride, cst.Name) and stride.value in self._size_params() and self._role(node) == "address":
            edits = [node.with_changes(right=cst.parse_expression(f"({k} * {stride.value})")) for k in (2, 3)]
            self._add(node, edits, "packed_stride", "fix_layout")

    def _move_stride(self, node: cst.BinaryOperation) -> None:
        """`... + a + b * S` -> `... + a * S' + b` (and the reverse): an index's stride on the wrong one of two
        neighbouring terms, with S or another scalar parameter as the stride (`c + l * C` for `c * L + l`)."""
        left = node.left
        prefix, a = (left.left, left.right) if _is(left, cst.Add) else (None, left)  # type: ignore[attr-defined]
        b = node.right
        pair = None
        if _is(b, cst.Multiply) and not _is(a, cst.Multiply):
            pair = (b.right, lambda s: f"{_code(a)} * {s} + {_code(b.left)}")  # type: ignore[attr-defined]
        elif _is(a, cst.Multiply) and not _is(b, cst.Multiply):
            pair = (a.right, lambda s: f"{_code(a.left)} + {_code(b)} * {s}")  # type: ignore[attr-defined]
        if pair is None or _base(a) in self._pointers or _base(b) in self._pointers:
            return
        stride, rewrite = pair
        strides = [_code(stride)]
        if isinstance(stride, cst.Name):
            strides += sorted(next((g for g in self._roles if stride.value in g), set()) - {stride.value})
        edits = []
        for s in strides:
            text = rewrite(s if _simple_term(s) else f"({s})")
            edits.append(cst.parse_expression(f"{_code(prefix)} + {text}" if prefix is not None else text))
        self._add(node, edits, "move_stride", "fix_layout")

    def _in_mask(self, node: cst.CSTNode) -> bool:
        """`node` is (part of) a `mask=` argument, or of the value of a name used as one."""
        parent = self.get_metadata(ParentNodeProvider, node, None)
        while parent is not None and not isinstance(parent, cst.SimpleStatementLine | cst.FunctionDef):
            if isinstance(parent, cst.Arg) and parent.keyword is not None and parent.keyword.value == "mask":
                return True
            if isinstance(parent, cst.Assign) and m.matches(parent.targets[0].target, m.Name()):
                return parent.targets[0].target.value in self._masks  # type: ignore[attr-defined]
            parent = self.get_metadata(ParentNodeProvider, parent, None)
        return False

    def _address(self, node: cst.BinaryOperation) -> bool:
        return _base(node) in self._pointers

    def _transposed(self, node: cst.BinaryOperation) -> None:
        """`... + a * S + b` -> `... + b * S' + a`: an index decomposed in the other order (row-major for
        column-major), with each scalar parameter as the new stride."""
        inner = node.left
        assert isinstance(inner, cst.BinaryOperation)
        prefix, product = (inner.left, inner.right) if isinstance(inner.operator, cst.Add) else (None, inner)
        if not (
            isinstance(product, cst.BinaryOperation)
            and isinstance(product.operator, cst.Multiply)
            and isinstance(product.left, cst.Name)
            and isinstance(node.right, cst.Name)
        ):
            return
        a, b = product.left.value, node.right.value
        strides = (
            sorted(next((g for g in self._roles if product.right.value in g), {product.right.value}))
            if isinstance(product.right, cst.Name)
            else [_code(product.right)]
        )
        edits = []
        for stride in strides:
            text = f"{b} * {stride} + {a}"
            edits.append(cst.parse_expression(f"{_code(prefix)} + {text}" if prefix is not None else text))
        self._add(node, edits, "transpose_index", "fix_layout")

    def _fixed_block(self, node: cst.Assign) -> None:
        """A block size fixed in the host code (`BLOCK_D = 64`) where the tile must cover a size of the input
        (`triton.next_power_of_2(D)`): lanes past 64 of a wider row are never written."""
        value = node.value
        if isinstance(value, cst.Integer) and (size := int(value.evaluated_value)) >= 16 and size & (size - 1) == 0:
            edits = [cst.parse_expression(f"triton.next_power_of_2({s})") for s in self._sizes]
            self._add(value, edits, "fixed_block", "boundary_mask")

    def _launch_size(self, node: cst.Call) -> None:
        """A launch argument computed where one of forward's sizes is meant (`n_parts * BLOCK` for `N`: the
        padded count, not the true one)."""
        for arg in node.args:
            if arg.keyword is None and isinstance(arg.value, cst.BinaryOperation):
                self._add(arg.value, [cst.Name(s) for s in self._sizes], "launch_size", "fix_formula")

    def visit_Module(self, node: cst.Module) -> None:
        self._constants = _numeric_constants(node)
        for statement in node.body:  # `MU = 256.0` for 255.0: a float constant of the module off by one
            assign = _single_assign(statement)
            if assign is not None and isinstance(assign.value, cst.Float):
                self._size_off_by_one(assign.value)

    def _host_ratio(self, node: cst.Assign) -> None:
        """A host scalar set to one module constant where a ratio or product of two is meant (`scale = ALPHA` for
        `ALPHA / R`): the other constants as divisor and factor."""
        value = node.value
        if isinstance(value, cst.Name) and value.value in self._constants:
            others = [c for c in self._constants if c != value.value]
            edits = [cst.parse_expression(f"{value.value} {op} {c}") for c in others for op in ("/", "*")]
            self._add(value, edits, "host_ratio", "fix_formula")

    def _host_size(self, node: cst.Assign) -> None:
        """A size the host computes one off (`n_out = N - K` for `N - K + 1` windows): the output it allocates, or
        the count it launches with, is one short or one over."""
        value = node.value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add | cst.Subtract):
            if not m.findall(value, m.Float()):
                self._add(
                    value,
                    [cst.parse_expression(f"{_code(value)} {d}") for d in ("+ 1", "- 1")],
                    "host_size",
                    "fix_formula",
                )

    def _missing_factor(self, expr: cst.BaseExpression) -> None:
        """A count of sizes that leaves one out (`P = H * W` pixels for `B * H * W`, a grid axis of `B` planes for
        `B * C`): the product times each of forward's other sizes."""
        factors = _product_names(expr)
        if factors is None or not set(factors) <= set(self._sizes):
            return
        others = [s for s in self._sizes if s not in factors and not s.startswith("_")]
        if id(expr) not in self._factored:  # a grid tuple assigned once and launched twice: its axes once
            self._factored.add(id(expr))
            edits = [cst.parse_expression(f"{_code(expr)} * {s}") for s in others]  # a product: no parentheses
            self._add(expr, edits, "missing_factor", "fix_formula")

    def _grid_factors(self, node: cst.Call) -> None:
        """`kernel[(a, b, B)](...)` or `grid = (a, b, B)`: each axis of a literal grid tuple."""
        grid = node.func.slice[0].slice.value if isinstance(node.func, cst.Subscript) else None  # type: ignore[attr-defined]
        if isinstance(grid, cst.Name):
            grid = self._host_assigned.get(grid.value)
        if isinstance(grid, cst.Tuple):
            for element in grid.elements:
                self._missing_factor(element.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        """An index split by `//` that also needs `% S` (a flat offset's middle coordinate)."""
        if self._in_forward and not self._in_kernel:
            self._host_ratio(node)
            self._fixed_block(node)
            self._host_size(node)
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                self._host_assigned[node.targets[0].target.value] = node.value
                if isinstance(node.value, cst.BinaryOperation):
                    self._missing_factor(node.value)
        if not self._in_kernel or len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        value = node.value
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.FloorDivide):
            scalars = next((g for g in self._roles if g & _param_names(self._kernel)), set())
            edits = [cst.parse_expression(f"({_code(value)}) % {s}") for s in sorted(scalars)]
            self._add(value, edits, "add_mod", "fix_layout")
        self._accumulate(node)
        self._padded_value(node)
        self._guarded_alias(node)
        self._unused_term(node)
        self._unused_value(node)
        self._carried_factor(node, node.targets[0].target.value, node.value)  # type: ignore[attr-defined]
        self._lost_construct(node.value)
        self._swapped_literals(node.value)

    def _sibling_terms(self, fn: cst.FunctionDef) -> None:
        """An address missing terms every other address with its terms has (`y_ptr + cols` beside
        `x_ptr + row * N + cols`: the row's offset dropped): those terms added, one edit per set missing."""
        addresses = _addresses(fn, self._pointers)
        for node, terms in addresses:
            missing = sorted(
                {tuple(sorted(other - terms)) for _, other in addresses if terms and terms < other},
                key=lambda extra: (len(extra), extra),
            )
            edits = [cst.parse_expression(f"{_code(node)} + {' + '.join(extra)}") for extra in missing]
            self._add(node, edits, "sibling_term", "fix_layout")

    def _sibling_offsets(self, fn: cst.FunctionDef) -> None:
        """An address whose offset is another address's but for one term (`out_ptr + row * V + j` beside
        `logits_ptr + row * V + tok`: a position where the token is meant), or is made of the same names in
        another order and strides (`g * M + rows` beside `rows * n_groups + g`): that address's offset."""
        addresses = _addresses(fn, self._pointers)
        for node, terms in addresses:
            pointer = _leftmost(node)
            indices = self._index_names_of(terms)
            offsets: list[str] = []
            for other, theirs in addresses:
                one_apart = len(theirs) == len(terms) and len(terms - theirs) == 1
                reordered = theirs != terms and len(theirs) == len(terms) and self._index_names_of(theirs) == indices
                offset = " + ".join(_code(t) for t in _terms(other))
                if terms and (one_apart or reordered) and offset not in offsets:
                    offsets.append(offset)
            edits = [cst.parse_expression(f"{_code(pointer)} + {offset}") for offset in offsets]
            self._add(node, edits, "sibling_offset", "fix_layout")

    def _sibling_value_terms(self, fn: cst.FunctionDef) -> None:
        """A value computed as a sibling value is but without the float constant the sibling adds or subtracts
        (`px = cols.to(tl.float32)` beside `py = rows.to(tl.float32) + 0.5`: a pixel's centre; `sx` beside `sy`):
        that term added. Siblings are first assignments of one shape but for the names they read."""
        shapes: dict[str, list[cst.BaseExpression]] = {}
        for statement in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
            assign = cst.ensure_type(statement, cst.Assign)
            name = cst.ensure_type(assign.targets[0].target, cst.Name).value
            if name not in self._masks | self._pointers and self._assigned.get(name) is assign.value:
                shapes.setdefault(_value_shape(assign.value), []).append(assign.value)
        for shape, values in shapes.items():
            for sibling in shapes:
                term = _added_float_term(shape, sibling)
                for value in values if term is not None else []:
                    self._add(
                        value, [cst.parse_expression(f"{_code(value)} {term}")], "sibling_value_term", "fix_formula"
                    )

    def _shift_added_back(self, fn: cst.FunctionDef) -> None:
        """A log of a sum of exponentials shifted by a value (`s = tl.sum(tl.exp(x - m[None, :]), axis=0)`) whose
        shift is not added back (`tl.log(s)` for `m + tl.log(s)`): a log-sum-exp kept stable and left off by m."""
        shifted: dict[str, str] = {}
        for statement in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
            assign = cst.ensure_type(statement, cst.Assign)
            name = cst.ensure_type(assign.targets[0].target, cst.Name).value
            total = assign.value
            if not (isinstance(total, cst.Call) and m.matches(total.func, _tl("sum")) and total.args):
                continue
            exp = total.args[0].value
            if isinstance(exp, cst.Call) and m.matches(exp.func, _tl("exp")) and exp.args:
                inner = exp.args[0].value
                if isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Subtract):
                    shift = inner.right.value if isinstance(inner.right, cst.Subscript) else inner.right
                    if isinstance(shift, cst.Name):  # `m[None, :]` broadcast over the summed axis: the sum's is m
                        shifted[name] = shift.value
        added = {  # (name, log call) pairs already summed: `shift + tl.log(s) + et`
            (t.value, id(c))
            for b in m.findall(fn, m.BinaryOperation(operator=m.Add()))
            for t in _summands(b)
            for c in _summands(b)
            if isinstance(t, cst.Name) and isinstance(c, cst.Call)
        }
        for call in m.findall(fn, m.Call(func=_tl("log"))):
            log = cst.ensure_type(call, cst.Call)
            total = log.args[0].value if log.args else None
            if isinstance(total, cst.Name) and total.value in shifted and (shifted[total.value], id(log)) not in added:
                edit = cst.parse_expression(f"({shifted[total.value]} + {_code(log)})")
                self._add(log, [edit], "shift_added_back", "fix_formula")

    def _size_params(self) -> set[str]:
        """The kernel's runtime scalar parameters (sizes, strides), not pointers or constexpr blocks."""
        return _param_names(self._kernel) - self._constexprs - self._pointers

    def _index_names_of(self, terms: frozenset[str]) -> frozenset[str]:
        """The index variables (not sizes or strides) an address's terms are made of."""
        return _names(cst.parse_expression(" + ".join(sorted(terms)))) & self._positions if terms else frozenset()

    def _load_from_output(self, fn: cst.FunctionDef) -> None:
        """A load from a pointer the kernel stores to, where one of the pointers it only reads is meant (an
        input's values taken from the output being written)."""
        stored, read = set(), []
        for call in m.findall(fn, m.Call(func=_tl("load") | _tl("store") | _tl("atomic_add"))):
            if isinstance(call, cst.Call) and call.args and (base := _base(call.args[0].value)) is not None:
                (read.append(call) if m.matches(call.func, _tl("load")) else stored.add(base))
        # the pointers it only reads, and first the parameters it never reads (the input the load was meant for)
        params = [p for p in self._unused if p not in stored] + sorted(
            p for p in _param_names(fn) if p in self._pointers and p not in stored
        )
        for call in read:
            address = call.args[0].value
            if _base(address) in stored:
                edits = [address.deep_replace(_leftmost(address), cst.Name(p)) for p in params]
                self._add(address, edits, "load_from_output", "fix_layout")  # type: ignore[arg-type]

    def _unused_term(self, node: cst.Assign) -> None:
        """A parameter the kernel is given and never reads, as the term an index is missing
        (`pos = l * S + k * D` for `pos = l * S - PAD + k * D`, PAD passed and unused)."""
        if not self._unused or node.targets[0].target.value not in self._positions:  # type: ignore[attr-defined]
            return
        if m.matches(node.value, m.Call(func=_tl("program_id"))):
            return  # a program's own index: an offset belongs where it is combined with others
        value = _summand(node.value)
        self._add(
            node.value,
            [cst.parse_expression(f"{value} {op} {p}") for p in self._unused for op in "-+"],
            "unused_param",
            "fix_layout",
        )

    def _unused_guard(
        self, node: cst.CSTNode, operand: cst.BaseExpression, rebuild: Callable[[cst.BaseExpression], cst.CSTNode]
    ) -> None:
        """A parameter the kernel is given and never reads, as the guard a root's, log's or quotient's operand is
        missing (`tl.sqrt(ms)` for `tl.sqrt(ms + eps)`, eps passed and unused): 1 / sqrt(0) is Inf."""
        if not self._unused or self._role(node) != "value":
            return
        text = _code(operand) if _simple(operand) else f"({_code(_bare(operand))})"
        guarded = [rebuild(cst.parse_expression(f"{text} + {p}")) for p in self._unused]
        self._add(node, guarded, "unused_param", "fix_formula")

    def _guarded_alias(self, node: cst.Assign) -> None:
        """`v = var` beside a parameter never read (EPS): the clamp or offset the copy was made for
        (`v = tl.maximum(var, EPS)`, `var + EPS`); and an index stride set to one size where the product of two
        is meant (`n_stride = HW` for `C * HW`)."""
        value = node.value
        if not isinstance(value, cst.Name):
            return
        if self._role(node.value) == "value" and self._unused:
            edits = [cst.parse_expression(f"tl.maximum({value.value}, {p})") for p in self._unused]
            edits += [cst.parse_expression(f"{value.value} + {p}") for p in self._unused]
            self._add(value, edits, "unused_param", "fix_formula")
        sizes = self._size_params()
        if value.value in sizes and node.targets[0].target.value in self._address_names:  # type: ignore[attr-defined]
            others = [u for u in self._unused if u in sizes] + sorted(sizes - {value.value} - set(self._unused))
            self._add(
                value, [cst.parse_expression(f"{o} * {value.value}") for o in others], "stride_factor", "fix_layout"
            )

    def _accumulate(self, node: cst.Assign) -> None:
        """A running value overwritten in a loop where it must accumulate (`carry = s` for `carry += s`)."""
        target = node.targets[0].target
        name = target.value  # type: ignore[attr-defined]
        loop = self._loop_of(node)
        if loop is None or name in _names(node.value) or not self._set_before(name, loop):
            return
        self._add(
            node,
            [cst.AugAssign(target=target, operator=cst.AddAssign(), value=node.value)],
            "accumulate",
            "fix_formula",
        )

    def _padded_sum(self, node: cst.AugAssign) -> None:
        """A running sum in a loop (`acc += loss`) of values computed from masked loads: the masked-off lanes' values
        (the loss of the padding) added too; each mask of the kernel's loads keeps them out."""
        if self._loop_of(node) is None or not self._masks or isinstance(node.value, cst.Call):
            return
        made_of = _names(node.value)
        for name in list(made_of):
            made_of |= _names(self._assigned.get(name, cst.Name("_")))
        if not made_of & set(self._loaded):
            return
        edits = [
            node.with_changes(value=cst.parse_expression(f"tl.where({mask}, {_code(node.value)}, 0.0)"))
            for mask in sorted(self._masks)
        ]
        self._add(node, edits, "pad_accumulate", "boundary_mask")

    def _padded_value(self, node: cst.Assign) -> None:
        """A value computed from a masked load whose padding lanes stop being zero (`d = x - mean`: -mean in every
        masked-off lane) before sums several lines later take it in: each mask of the kernel's loads zeroes them
        where the value is made, the one site that keeps them out of all its sums."""
        value = node.value
        if not isinstance(value, cst.BinaryOperation) or not _names(value) & set(self._loaded) or not self._masks:
            return
        if self._role(value) != "value":
            return
        edits = [cst.parse_expression(f"tl.where({mask}, {_code(value)}, 0.0)") for mask in sorted(self._masks)]
        self._add(value, edits, "pad_value", "boundary_mask")

    def _loads_never_read(self, fn: cst.FunctionDef) -> dict[str, int]:
        """Locals assigned from a tl.load (values, not indices or masks) that nothing in the kernel reads."""
        read: dict[str, int] = {}
        for n in m.findall(fn.body, m.Name()):
            if isinstance(n, cst.Name):
                read[n.value] = read.get(n.value, 0) + 1
        found = {}
        for assign in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
            name = assign.targets[0].target.value  # type: ignore[attr-defined]
            root = _root_call(assign.value)  # type: ignore[attr-defined]
            loaded = isinstance(root, cst.Call) and m.matches(root.func, _tl("load"))
            if loaded and read.get(name, 0) == 1 and name not in self._positions | self._masks:
                found[name] = self._line(assign)
        return found

    def _unused_value(self, node: cst.Assign) -> None:
        """A value the kernel loads and never reads, as the factor or divisor a later value is missing
        (`xhat = x - mean` for `(x - mean) * rstd`, rstd loaded and unused): broadcast as the value's other
        operands are (`rstd[:, None]` beside `mean[:, None]`)."""
        name = node.targets[0].target.value  # type: ignore[attr-defined]
        if name in self._positions | self._masks | self._pointers or isinstance(node.value, cst.Call):
            return
        line = self._line(node)
        unused = sorted(u for u, at in self._unused_loads.items() if at < line)
        if not unused:
            return
        suffixes = sorted(
            {
                _code(sub)[len(_code(sub.value)) :]  # type: ignore[attr-defined]
                for sub in m.findall(node.value, m.Subscript(value=m.Name()))
            }
        )
        forms = [u + suffix for u in unused for suffix in suffixes] + unused
        value = f"({_code(_bare(node.value))})"
        edits = [cst.parse_expression(f"{value} {op} {form}") for form in forms for op in ("*", "/")]
        self._add(node.value, edits, "unused_value", "fix_formula")

    def _carried_factor(self, node: cst.Assign | cst.AugAssign, name: str, value: cst.BaseExpression) -> None:
        """A value a loop carries and adds to without the factor another carried value is rescaled by in the same
        loop (`acc = acc + p @ v` beside `l = l * alpha + sum(p)`: an online softmax's accumulator not rescaled)."""
        loop = self._loop_of(node)
        added = isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add)
        if loop is None or not added or not m.matches(value.left, m.Name(name)):  # type: ignore[attr-defined]
            return
        factors = []
        assigns = list(m.findall(loop, m.Assign(targets=[m.AssignTarget(target=m.Name())])))
        for other in assigns:
            target, rhs = other.targets[0].target.value, other.value  # type: ignore[attr-defined]
            if target == name or not (isinstance(rhs, cst.BinaryOperation) and isinstance(rhs.operator, cst.Add)):
                continue
            scaled = rhs.left
            if _is(scaled, cst.Multiply) and m.matches(scaled.left, m.Name(target)):  # type: ignore[attr-defined]
                factors.append(_code(scaled.right))  # type: ignore[attr-defined]
        rest = _code(value.right)  # type: ignore[attr-defined]
        factors += _running_max_factors(assigns, rest)
        # a per-row factor rescales a 2-D accumulator (BLOCK_M, D) broadcast along its rows
        factors += [f"{f}[:, None]" for f in factors if m.matches(cst.parse_expression(f), m.Name())]
        edits = [cst.parse_statement(f"{name} = {name} * {f} + {rest}").body[0] for f in dict.fromkeys(factors)]  # type: ignore[attr-defined]
        self._add(node, edits, "carried_factor", "fix_formula")

    def _loop_of(self, node: cst.CSTNode) -> cst.For | cst.While | None:
        """The innermost loop of the kernel around `node`."""
        at = self.get_metadata(ParentNodeProvider, node, None)
        while at is not None and not isinstance(at, cst.FunctionDef):
            if isinstance(at, cst.For | cst.While):
                return at
            at = self.get_metadata(ParentNodeProvider, at, None)
        return None

    def _set_before(self, name: str, loop: cst.CSTNode) -> bool:
        """`name` is assigned in the kernel above `loop` (a value the loop carries)."""
        first = self._assigned.get(name)
        return first is not None and self._line(first) < self._line(loop)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        """Two neighbouring assignments of the same kind (two program ids, two loads) with their values swapped."""
        if not self._in_kernel:
            return
        body = list(node.body)
        for first, second in zip(body, body[1:], strict=False):
            a, b = _single_assign(first), _single_assign(second)
            if a is None or b is None or _code(a.value) == _code(b.value) or not _same_kind(a.value, b.value):
                continue
            swapped = node.with_changes(
                body=[
                    _with_value(s, b.value) if s is first else _with_value(s, a.value) if s is second else s
                    for s in body
                ]
            )
            texts = (
                f"{_code(a)}; {_code(b)}",
                f"{_code(a.with_changes(value=b.value))}; {_code(b.with_changes(value=a.value))}",
            )
            self.sites.append(_Site(node, (swapped,), "swap_values", "fix_layout", line_of=first, texts=texts))
        self._statement_order(node, body)

    def _statement_order(self, node: cst.IndentedBlock, body: list) -> None:
        """Two neighbouring statements of a loop in the wrong order: a carried value updated before the statement
        that was to use its old value (`carry += s; out = cumsum + carry` for the other way round)."""
        loop = self._loop_of(body[0]) if body else None
        if loop is None:
            return
        for i, (first, second) in enumerate(zip(body, body[1:], strict=False)):
            a, b = _assignment(first), _assignment(second)
            if a is None or b is None:
                continue
            (wrote_a, read_a), (wrote_b, read_b) = a, b
            if wrote_a == wrote_b or not (wrote_a in read_b or wrote_b in read_a):
                continue
            if wrote_a in read_b and not self._set_before(wrote_a, loop):
                continue  # moved up, the second statement would read a name only set below it
            swapped = node.with_changes(body=[*body[:i], second, first, *body[i + 2 :]])
            texts = (
                f"{_code(first).strip()}; {_code(second).strip()}",
                f"{_code(second).strip()}; {_code(first).strip()}",
            )
            self.sites.append(_Site(node, (swapped,), "statement_order", "fix_formula", line_of=first, texts=texts))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """A narrow dtype where a wider one is needed (fp16 / bf16 -> fp32, int32 -> int64), kernel or host."""
        module = node.value
        if not isinstance(module, cst.Name) or module.value not in ("tl", "torch"):
            return
        wider = {"float16": "float32", "bfloat16": "float32", "int32": "int64"}.get(node.attr.value)
        if wider is not None:
            self._add(node, [node.with_changes(attr=cst.Name(wider))], "dtype", "fp32_accumulator")

    def visit_Float(self, node: cst.Float) -> None:
        self._finite_sentinel(node)
        if self._in_kernel and abs(float(node.evaluated_value)) < _SENTINEL_MAGNITUDE and self._formula_value(node):
            self._add(node, formula_edits.scaled_literal(node), "scale_constant", "fix_formula")

    def visit_Integer(self, node: cst.Integer) -> None:
        self._finite_sentinel(node)
        self._address_constant(node)

    def _address_constant(self, node: cst.Integer) -> None:
        """A constant term of an address one off (`q_ptr + 2 * i + 0` for the `+ 1` of an interleaved pair's second
        component, `+ 1` for `+ 2` of an RGB triple's blue): the constant +-1 (its -1 for a 1 is off_by_one's)."""
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if not (self._in_kernel and isinstance(parent, cst.BinaryOperation) and parent.right is node):
            return
        if not isinstance(parent.operator, cst.Add | cst.Subtract) or self._role(node) != "address":
            return
        k = int(node.evaluated_value)
        self._add(node, [cst.Integer(str(v)) for v in [k + 1] + [k - 1] * (k > 1)], "address_constant", "fix_layout")

    def _finite_sentinel(self, node: cst.Float | cst.Integer) -> None:
        """A large finite constant standing for infinity (a running max started at -1e4, a min at 1e9): inputs
        beyond it, or an empty range, give the constant where the reference gives the input or -inf."""
        if self._in_kernel and abs(float(node.evaluated_value)) >= _SENTINEL_MAGNITUDE and self._role(node) == "value":
            self._add(node, [cst.parse_expression('float("inf")')], "infinite_sentinel", "fix_formula")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        """A minus too many on a value (`-x` for `x`); its opposite, one missing, on a math function's argument."""
        if self._in_kernel and isinstance(node.operator, cst.Minus) and self._role(node) == "value":
            self._add(node, [node.expression], "negate", "fix_formula")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self._in_kernel:
            return
        if isinstance(node.operator, cst.AddAssign) and isinstance(node.target, cst.Name):
            self._carried_factor(node, node.target.value, cst.BinaryOperation(node.target, cst.Add(), node.value))
            self._padded_sum(node)
        if isinstance(node.operator, cst.AddAssign):
            self._add(node, [node.with_changes(operator=cst.SubtractAssign())], "sign", "fix_formula")
            self._pointer_step(node)
        elif isinstance(node.operator, cst.SubtractAssign):
            self._add(node, [node.with_changes(operator=cst.AddAssign())], "sign", "fix_formula")

    def _pointer_step(self, node: cst.AugAssign) -> None:
        """A pointer advanced by a count of elements without its stride (`row_ptr += 1` for `+= N`, a chunk of
        `BLOCK` rows as `+= BLOCK` for `+= BLOCK * D`): the step times each size parameter."""
        if not (isinstance(node.target, cst.Name) and node.target.value in self._pointers):
            return
        step = node.value
        one = m.matches(step, m.Integer("1"))
        operand = _code(step) if not isinstance(step, cst.BinaryOperation) else f"({_code(step)})"
        values = [cst.parse_expression(s if one else f"{operand} * {s}") for s in sorted(self._size_params())]
        self._add(step, values, "pointer_step", "fix_layout")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not self._in_kernel or len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        flips = {
            cst.LessThan: cst.LessThanEqual,
            cst.LessThanEqual: cst.LessThan,
            cst.GreaterThan: cst.GreaterThanEqual,
            cst.GreaterThanEqual: cst.GreaterThan,
        }
        flip = flips.get(type(target.operator))
        if isinstance(target.operator, cst.Equal | cst.NotEqual) and isinstance(target.comparator, cst.Integer):
            value = int(target.comparator.evaluated_value)  # which part, which channel: one of its neighbours
            others = [cst.Integer(str(v)) for v in (value - 1, value + 1) if v >= 0]
            edits = [node.with_changes(comparisons=[target.with_changes(comparator=o)]) for o in others]
            self._add(node, edits, "compare_constant", "fix_formula")
        elif isinstance(target.operator, cst.Equal | cst.NotEqual) and any(self._placed_sides(node)):
            # `lane == BLOCK` for `lane == BLOCK - 1`: which lane, which step: one of its neighbours
            edits = [
                node.with_changes(comparisons=[target.with_changes(comparator=_plus(target.comparator, d))])
                for d in (-1, 1)
            ]
            self._add(node, edits, "compare_constant", "fix_formula")
        if flip is None:
            return
        self._compare_direction(node, target)
        edits = [node.with_changes(comparisons=[target.with_changes(operator=flip())])]
        edits += [
            node.with_changes(comparisons=[target.with_changes(comparator=_plus(target.comparator, d))])
            for d in (1, -1)
        ]
        self._add(node, edits, "bound", "boundary_mask")
        self._lower_bound(node, target)

    def _compare_direction(self, node: cst.Comparison, target: cst.ComparisonTarget) -> None:
        """Two positions or values compared the wrong way round (`j > i` for `j < i`: the later for the earlier, a
        lower triangle for an upper one): the mirrored operator. A bound (`offs < n`) is never mirrored."""
        if self._against_a_size(node):
            return
        mirrored = {
            cst.LessThan: cst.GreaterThan,
            cst.LessThanEqual: cst.GreaterThanEqual,
            cst.GreaterThan: cst.LessThan,
            cst.GreaterThanEqual: cst.LessThanEqual,
        }[type(target.operator)]
        edit = node.with_changes(comparisons=[target.with_changes(operator=mirrored())])
        self._add(node, [edit], "compare_direction", "fix_formula")

    def _lower_bound(self, node: cst.Comparison, target: cst.ComparisonTarget) -> None:
        """A mask with the upper bound alone for a position that can go below 0 (`pos < L` for
        `(pos >= 0) & (pos < L)`, with `pos` made with a subtraction: a padding or a shift)."""
        if not isinstance(target.operator, cst.LessThan | cst.LessThanEqual) or not self._against_a_size(node):
            return
        position = node.left
        made = [position, *(self._assigned[n] for n in _names(position) if n in self._assigned)]
        if not any(m.findall(e, m.BinaryOperation(operator=m.Subtract())) for e in made):
            return
        bare = _bare(node)
        both = f"({_operand(position)} >= 0) & ({_code(bare)})"
        self._add(node, [cst.parse_expression(f"({both})" if node.lpar else both)], "lower_bound", "boundary_mask")

    def visit_Call(self, node: cst.Call) -> None:
        if self._in_kernel:
            self._kernel_call(node)
        else:
            self._host_call(node)

    def _sibling_wrap(self, node: cst.Call) -> None:
        """An argument left bare beside one passed through a math function (`f(tl.abs(a), b)` for
        `f(tl.abs(a), tl.abs(b))`): the function given to the bare one too."""
        calls = [a.value for a in node.args if isinstance(a.value, cst.Call) and len(a.value.args) == 1]
        wrapped = {_code(c.func) for c in calls if m.matches(c.func, m.OneOf(*(_tl(f) for f in _SIBLING_FUNCTIONS)))}
        bare = [(a, a.value.value) for a in node.args if a.keyword is None and isinstance(a.value, cst.Name)]
        edits = [
            _replace_arg(node, a, cst.parse_expression(f"{f}({name})")) for f in sorted(wrapped) for a, name in bare
        ]
        self._add(node, edits, "sibling_wrap", "fix_formula")

    def _swapped_literals(self, value: cst.BaseExpression) -> None:
        """Two numbers of one formula swapped (`(n == 2) | (c & (n == 3))` for `(n == 3) | (c & (n == 2))`)."""
        found = m.findall(value, m.Integer() | m.Float())
        numbers = [n for n in found if isinstance(n, cst.Integer | cst.Float) and _number(n)][:_SWAP_LITERALS_MAX]
        edits = []
        for i, a in enumerate(numbers):
            for b in numbers[i + 1 :]:
                if type(a) is type(b) and a.value != b.value:  # type: ignore[attr-defined]
                    edits.append(value.visit(_ReplaceAll({id(a): b, id(b): a})))
        self._add(value, edits, "swap_literals", "fix_formula")

    def _abs_edits(self, node: cst.Call, args) -> None:
        """A maximum of magnitudes taken of signed values (an absmax scale without tl.abs)."""
        edits = [_replace_arg(node, a, wrapped) for a in args if (wrapped := _abs(a.value)) is not None]
        self._add(node, edits, "abs_value", "fix_formula")

    def _reduce_axis(self, node: cst.Call) -> None:
        """A reduction of a 2-D tile along the other axis (`tl.sum(t, axis=0)` for `axis=1`)."""
        reductions = _tl("sum") | _tl("max") | _tl("min") | _tl("argmax") | _tl("argmin") | _tl("cumsum")
        if not m.matches(node.func, reductions):
            return
        axis = _kwarg(node, "axis") or (node.args[1] if len(node.args) > 1 and node.args[1].keyword is None else None)
        if axis is None or not m.matches(axis.value, m.Integer("0") | m.Integer("1")):
            return
        other = cst.Integer("1" if m.matches(axis.value, m.Integer("0")) else "0")
        self._add(node, [_replace_arg(node, axis, other)], "reduce_axis", "fix_layout")

    def _floor_cast(self, node: cst.Call) -> None:
        """A quotient cast to an integer, which rounds toward zero, where the floor is meant (a cell index of
        coordinates that can be negative: `((p - p0) / v).to(tl.int32)` for `tl.floor((p - p0) / v).to(tl.int32)`)."""
        if not (m.matches(node.func, m.Attribute(attr=m.Name("to"))) and node.args):
            return
        if not m.matches(node.args[0].value, m.Attribute(value=m.Name("tl"), attr=m.Name(m.MatchRegex(r"u?int\d+")))):
            return
        value = node.func.value  # type: ignore[attr-defined]
        if not m.matches(_bare(value), m.BinaryOperation(operator=m.Divide())):
            return
        floored = node.with_changes(
            func=node.func.with_changes(value=cst.parse_expression(f"tl.floor({_code(_bare(value))})"))
        )  # type: ignore[attr-defined]
        self._add(node, [floored], "floor_cast", "fix_formula")

    def _kernel_call(self, node: cst.Call) -> None:
        func = node.func
        signed = m.Attribute(attr=m.OneOf(*(m.Name(f) for f in _SIGNED_ARGUMENT)))
        if m.matches(func, signed) and len(node.args) == 1 and self._role(node) == "value":
            arg = node.args[0].value
            if not m.matches(arg, m.UnaryOperation(operator=m.Minus())):
                negated = cst.parse_expression(f"-{_code(arg)}" if _simple(arg) else f"-({_code(_bare(arg))})")
                self._add(node, [_replace_arg(node, node.args[0], negated)], "negate", "fix_formula")
        if m.matches(func, _tl("store")):
            self._scale_stored(node)
            stored = _stored_value(node)
            if stored is not None:
                self._lost_construct(stored.value)
                self._swapped_literals(stored.value)
        if m.matches(func, _tl("max")) and node.args:
            self._abs_edits(node, node.args[:1])
        self._reduce_axis(node)
        self._floor_cast(node)
        self._sibling_wrap(node)
        if m.matches(func, _tl("arange") | _tl("max") | _tl("min") | _tl("sum")):
            self._defined_name(node)
        if m.matches(func, _tl("full")) and len(node.args) >= 2:
            self._fill_value(node, node.args[1])
        if m.matches(func, _tl("zeros")) and node.args:
            self._zeros_start(node)
        if m.matches(func, _tl("minimum") | _tl("maximum") | _tl("min") | _tl("max")):
            self._min_max(node)
        if m.matches(func, _tl("sqrt") | _tl("rsqrt") | _tl("log")) and len(node.args) == 1:
            self._unused_guard(node, node.args[0].value, lambda guarded: _replace_arg(node, node.args[0], guarded))
        if m.matches(func, m.Name("range")) and node.args:
            bound = node.args[-1] if len(node.args) <= 2 else node.args[1]
            edits = [_replace_arg(node, bound, _plus(bound.value, d)) for d in (1, -1)]
            value = bound.value
            if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add | cst.Subtract):
                edits.append(_replace_arg(node, bound, value.left))  # range(0, N - BLOCK, ...) -> range(0, N, ...)
            if len(node.args) >= 2:
                start = node.args[0]
                edits += [_replace_arg(node, start, _plus(start.value, d)) for d in (1, -1)]
            self._add(node, edits, "loop_bound", "boundary_mask")
        elif m.matches(func, _tl("program_id")) and node.args and m.matches(node.args[0].value, m.Integer()):
            axis = int(node.args[0].value.evaluated_value)  # type: ignore[attr-defined]
            self._add(
                node,
                [_replace_arg(node, node.args[0], cst.Integer(str(a))) for a in (0, 1, 2) if a != axis],
                "program_axis",
                "fix_layout",
            )
        elif m.matches(func, _tl("sum") | _tl("max") | _tl("min")) and node.args and self._masks:
            kind = func.attr.value  # type: ignore[attr-defined]
            value = node.args[0]
            edits = [
                _replace_arg(
                    node,
                    value,
                    cst.parse_expression(f"tl.where({mask}, {_code(value.value)}, {_IDENTITY[kind]})"),
                )
                for mask in sorted(self._masks)
            ]
            self._add(node, edits, "pad_reduction", "boundary_mask")
        elif m.matches(func, _tl("minimum") | _tl("maximum")) and len(node.args) == 2:
            kind = "min" if func.attr.value == "minimum" else "max"  # type: ignore[attr-defined]
            edits = [
                _replace_arg(
                    node, arg, cst.parse_expression(f"tl.where({self._loaded[name]}, {name}, {_IDENTITY[kind]})")
                )
                for arg in node.args
                if isinstance(arg.value, cst.Name) and (name := arg.value.value) in self._loaded
            ]
            self._add(node, edits, "pad_accumulate", "boundary_mask")  # padding lanes kept out of a running min/max
            if kind == "max":
                self._abs_edits(node, node.args)
        elif m.matches(func, _tl("load")):
            other = _kwarg(node, "other")
            if other is not None:
                now = _code(other.value).replace(" ", "")
                integral = m.matches(other.value, m.Integer() | m.UnaryOperation(expression=m.Integer()))
                paddings = [*self._sentinels_of(node), *(_INTEGER_PADDINGS if integral else _PADDINGS)]
                edits = [
                    _replace_arg(node, other, cst.parse_expression(p)) for p in paddings if p.replace(" ", "") != now
                ]
                self._add(node, edits, "padding", "boundary_mask")

    def _defined_name(self, node: cst.Call) -> None:
        """An expression used bare where the name made from it is meant: a block's lane numbers for the element's
        index (`tl.arange(0, B) == t` for `cols == t`, `cols = c0 + tl.arange(0, B)`), a chunk's max for the running
        max (`tl.max(x, axis=0)` for `m`, `m = tl.maximum(m, tl.max(x, axis=0))`): those names, in its place."""
        code = _code(node)
        made = [
            (a.targets[0].target.value, a.value)  # type: ignore[attr-defined]
            for a in self._assignments(set(self._assigned))
            if isinstance(a.value, cst.BinaryOperation | cst.Call)
            and not m.matches(a.value, m.Call(func=_tl("arange") | _tl("max") | _tl("min") | _tl("sum")))
            and any(_code(part) == code for part in _operands(a.value))
        ]
        if any(c is node for _, value in made for c in m.findall(value, m.Call())):
            return  # the expression that defines the name
        names = sorted({name for name, _ in made})
        self._add(node, [cst.Name(name) for name in names], "global_index", "fix_layout")

    def _fill_value(self, node: cst.Call, fill: cst.Arg) -> None:
        """A tile's initial value (`tl.full(shape, 0.0)` where a max starts at -inf; -inf where the online softmax
        needs a finite start, -inf - -inf being NaN on rows with nothing in range)."""
        now = _code(fill.value).replace(" ", "")
        finite = {'float("-inf")': "-1e30", 'float("inf")': "1e30"}.get(now)
        extremes = _INTEGER_STARTS.get(_dtype_name(node) or "")
        starts = ("0", *extremes, "1") if extremes else (*_PADDINGS, *([finite] if finite else []))
        values = [p for p in starts if p.replace(" ", "") != now]
        self._add(
            node, [_replace_arg(node, fill, cst.parse_expression(v)) for v in values], "fill_value", "fix_formula"
        )

    def _zeros_start(self, node: cst.Call) -> None:
        """A tile started at 0 (`tl.zeros`) that a running min / max or a product needs started at its identity: the
        dtype's largest or smallest value (an integer's, or +-inf), or 1."""
        dtype = _dtype_name(node)
        if dtype is None:
            return
        starts = [*_INTEGER_STARTS.get(dtype, ('float("inf")', 'float("-inf")')), "1"]
        shape = _code(node.args[0].value)
        tiles = [cst.parse_expression(f"tl.full({shape}, {v}, dtype={dtype})") for v in starts]
        self._add(node, tiles, "fill_value", "fix_formula")

    def _min_max(self, node: cst.Call) -> None:
        """The other of a min / max pair (`tl.maximum(d, clip)` for `tl.minimum`, `tl.max` for `tl.min`)."""
        other = {"minimum": "maximum", "maximum": "minimum", "min": "max", "max": "min"}
        name = node.func.attr.value  # type: ignore[attr-defined]
        self._add(node, [node.with_changes(func=cst.parse_expression(f"tl.{other[name]}"))], "min_max", "fix_formula")

    def _sentinels_of(self, load: cst.Call) -> list[str]:
        """What the loaded value is tested for equality with (`t != IGNORE`): the value that marks an element to
        leave out, and so what its masked-off lanes must hold (`other=IGNORE`, not `other=0`)."""
        names = [n for n, v in self._assigned.items() if any(c is load for c in m.findall(v, m.Call()))]
        found: list[str] = []
        tests = m.Comparison(comparisons=[m.ComparisonTarget(operator=m.Equal() | m.NotEqual())])
        for compare in m.findall(self._kernel, tests) if self._kernel and names else []:
            assert isinstance(compare, cst.Comparison)
            sentinel = _code(compare.comparisons[0].comparator)
            if isinstance(compare.left, cst.Name) and compare.left.value in names and sentinel not in found:
                found.append(sentinel)
        return found

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._in_kernel or len(node.slice) != 2:
            return
        a, b = (s.slice for s in node.slice)
        if isinstance(a, cst.Index) and isinstance(b, cst.Index):
            return
        self._add(
            node,
            [node.with_changes(slice=[node.slice[0].with_changes(slice=b), node.slice[1].with_changes(slice=a)])],
            "broadcast_axis",
            "fix_layout",
        )

    def visit_Name(self, node: cst.Name) -> None:
        if not self._in_kernel:
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        self._shift_index(node, parent)
        if isinstance(parent, cst.AssignTarget | cst.Param | cst.Attribute | cst.FunctionDef | cst.Arg) and not (
            isinstance(parent, cst.Arg) and parent.value is node
        ):
            return
        if isinstance(parent, cst.Attribute) and parent.value is not node:
            return
        constexpr = self._constexprs
        for group in self._roles:
            if node.value in group:
                # a size slips for another size the launch passes (n_out for N) more often than for a block size
                # or a constant (constexprs), and the other way round: those of its own kind first
                kind = node.value in constexpr
                others = sorted(group - {node.value}, key=lambda o: ((o in constexpr) != kind, o))
                self._add(node, [cst.Name(other) for other in others], "name_swap", "fix_formula")
        if node.value in self._pointers and node.value in self._pointer_params:  # another tensor's load or store
            others = [cst.Name(p) for p in self._pointer_params if p != node.value]
            self._pointer_swaps.append((node, others))  # after the kernel's other operators: theirs are more specific
        twins = [t for t in sorted(self._twins.get(node.value, ())) if self._first_line(t) < self._line(node)]
        self._add(node, [cst.Name(t) for t in twins], "value_swap", "fix_formula")
        self._derived_name(node)
        self._local_swap(node, twins)  # after the likelier swaps: an edit one of them makes keeps its name

    def _local_swap(self, node: cst.Name, twins: list[str]) -> None:
        """A value used for another value the kernel computed before this line (`cl` for `sl`, the raw byte for its
        upper-cased copy): any of them, where no shape of their formulas makes one the likelier (value_swap)."""
        values = set(self._assigned) - self._positions - self._masks - self._pointers - self._loops
        if node.value not in values or self._uses.get(node.value, 0) < 2:
            return  # its only use swapped away leaves a value computed for nothing: a bypass (log1p(x) ~ x), no repair
        line = self._line(node)
        others = sorted(v for v in values - {node.value, *twins} if self._first_line(v) < line)
        self._add(node, [cst.Name(v) for v in others], "local_swap", "fix_formula")

    def _shift_division(self, node: cst.BinaryOperation) -> None:
        """`x // 2**k` for `x >> k` and back: Triton's integer `//` truncates toward zero where the shift floors, so
        the two differ on negative values (`-3 // 2` is -1 in a kernel, `-3 >> 1` is -2)."""
        right = node.right
        if not isinstance(right, cst.Integer) or not right.value.isdigit():
            return
        k = int(right.value)
        if isinstance(node.operator, cst.FloorDivide) and k > 1 and k & (k - 1) == 0:
            after = node.with_changes(operator=cst.RightShift(), right=cst.Integer(str(k.bit_length() - 1)))
        elif isinstance(node.operator, cst.RightShift) and 0 < k < 63:
            after = node.with_changes(operator=cst.FloorDivide(), right=cst.Integer(str(1 << k)))
        else:
            return
        self._add(node, [_parenthesized(after)], "shift_division", "fix_formula")

    def _regroup(self, node: cst.BinaryOperation) -> None:
        """A value's terms grouped otherwise: parentheses left out (`b - s / d` for `(b - s) / d`) or put in where
        none belong, and a factor applied to a whole sum where one term is meant (`r * (a + b)` for `a + r * b`)."""
        op, left, right = _code(node.operator).strip(), node.left, node.right
        sums, products = (cst.Add, cst.Subtract), (cst.Multiply, cst.Divide)
        found = []
        if isinstance(node.operator, sums) and isinstance(right, cst.BinaryOperation) and not right.lpar:
            if isinstance(right.operator, products):  # a - b / c -> (a - b) / c
                inner = _code(right.operator).strip()
                found.append(f"({_code(left)} {op} {_code(right.left)}) {inner} {_code(right.right)}")
        for factor, group, factor_first in ((left, right, True), (right, left, False)):
            if not isinstance(node.operator, products) or not (
                isinstance(group, cst.BinaryOperation) and group.lpar and isinstance(group.operator, sums)
            ):
                continue
            inner, a, b, f = (_code(x).strip() for x in (group.operator, _bare(group.left), _bare(group.right), factor))
            if factor_first:  # r * (a + b) -> a + r * b, r * a + b
                found += [f"{a} {inner} {f} {op} {b}", *([f"{f} {op} {a} {inner} {b}"] if op == "*" else [])]
            else:  # (a + b) * r -> a + b * r; (a - b) / c -> a - b / c
                found.append(f"{a} {inner} {b} {op} {f}")
        parent = self.get_metadata(ParentNodeProvider, node, None)
        wrap = not isinstance(parent, cst.Assign | cst.Arg | cst.Return)  # inside a larger expression: keep it whole
        edits = [_parsed(f"({text})" if wrap else text) for text in dict.fromkeys(found)]
        self._add(node, edits, "regroup", "fix_formula")

    def _derived_name(self, node: cst.Name) -> None:
        """A name used where the name made from it is meant: the raw value for its guarded or offset form (`m` for
        `m_safe = tl.where(m == -inf, 0.0, m)`, the tensor's base for the row's pointer `row_ptr = x_ptr + row *
        stride`), after that name exists and outside its own definition."""
        made = [
            w
            for w in self._derived.get(node.value, ())
            if self._first_line(w) < self._line(node)
            and not any(n is node for n in m.findall(self._assigned[w], m.Name(node.value)))
        ]
        self._add(node, [cst.Name(w) for w in made], "derived_name", "fix_formula")

    def _derived_names(self, fn: cst.FunctionDef) -> dict[str, list[str]]:
        """name -> the locals first assigned an arithmetic of it, or a guard of it (tl.where / maximum / minimum
        with it as an argument), of the same kind (pointer, index, mask or value)."""
        groups = (self._pointers, self._positions, self._masks)

        def kind(name: str) -> int:
            return next((i for i, group in enumerate(groups) if name in group), len(groups))

        found: dict[str, list[str]] = {}
        for w, expr in _assigned_names(fn).items():
            if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _ARITHMETIC):
                operands = _arithmetic_leaves(expr)
            elif isinstance(expr, cst.Call) and m.matches(expr.func, _tl("where") | _tl("maximum") | _tl("minimum")):
                operands = [a.value for a in expr.args]
            else:
                continue
            for v in dict.fromkeys(o.value for o in operands if isinstance(o, cst.Name)):
                if v != w and kind(v) == kind(w):
                    found.setdefault(v, []).append(w)
        return found

    def _value_twins(self, fn: cst.FunctionDef) -> dict[str, set[str]]:
        """Values (not indices, masks or pointers) whose first assignments have the same shape but for the names
        they read (`w = min(ax2, bx2) - max(ax1, bx1)` and `h = min(ay2, by2) - max(ay1, by1)`): one used for the
        other is a slip of the formula."""
        shapes: dict[str, set[str]] = {}
        for name, expr in _assigned_names(fn).items():
            if name in self._positions | self._masks | self._pointers:
                continue
            shape = _names_blanked(expr)
            if "_" in shape:
                shapes.setdefault(shape, set()).add(name)
        return {n: group - {n} for group in shapes.values() if len(group) > 1 for n in group}

    def _first_line(self, name: str) -> int:
        first = self._assigned.get(name)
        return self._line(first) if first is not None else 1 << 30

    def _shift_index(self, node: cst.Name, parent: cst.CSTNode | None) -> None:
        """An index used one off in a value computed from it (`h` for `h + 1` in a per-head slope), outside the
        addresses and masks (whose +-1 the bound and offset edits cover)."""
        if node.value not in self._integers or isinstance(parent, cst.AssignTarget | cst.Param | cst.FunctionDef):
            return
        if isinstance(parent, cst.Attribute) and parent.value is not node:
            return
        if isinstance(parent, cst.Arg) and parent.value is not node:
            return
        child, at = node, parent
        while at is not None and not isinstance(at, cst.SimpleStatementLine | cst.FunctionDef | cst.For):
            if isinstance(at, cst.Arg) and at.keyword is not None and at.keyword.value == "mask":
                return
            if isinstance(at, cst.Call) and m.matches(at.func, _tl("load") | _tl("store") | _tl("atomic_add")):
                if at.args and child is at.args[0]:
                    return
            if isinstance(at, cst.Comparison) or (isinstance(at, cst.Call) and m.matches(at.func, m.Name("range"))):
                return
            child, at = at, self.get_metadata(ParentNodeProvider, at, None)
        if isinstance(at, cst.For):
            return
        self._add(node, [cst.parse_expression(f"({node.value} {op} 1)") for op in "+-"], "shift_index", "fix_formula")

    # -- host operators -----------------------------------------------------------------------------
    def _stride_arguments(self, node: cst.Call) -> None:
        """A launch argument a kernel uses as a stride (or offset) of a tensor's addresses, written as a size or a
        number (`a.shape[2]`, `N`, `1`: a contiguous layout assumed) where the tensor may be a strided view (a
        slice, a transpose, one channel of several): that tensor's own `.stride(d)`."""
        kernel = self._strides.get(node.func.value.value)  # type: ignore[attr-defined]
        if kernel is None:
            return
        params, strides = kernel
        bound = _bound_arguments(node, params)
        for param, pointers in strides.items():
            arg = bound.get(param)
            if arg is None or ".stride(" in _code(arg.value):  # another `.stride(d)`: the dimension edit's
                continue
            tensors = sorted(
                {bound[p].value.value for p in pointers if p in bound and isinstance(bound[p].value, cst.Name)}  # type: ignore[attr-defined]
            )
            edits = [cst.parse_expression(f"{t}.stride({d})") for t in tensors for d in range(_STRIDE_DIMS)]
            self._add(arg.value, edits, "stride_argument", "fix_layout")

    def _host_call(self, node: cst.Call) -> None:
        func = node.func
        if self._in_forward and isinstance(func, cst.Subscript):  # kernel[grid](...)
            self._launch_size(node)
            self._grid_factors(node)
        dtype = _kwarg(node, "dtype")
        allocation = m.Attribute(value=m.Name("torch"), attr=m.Name("empty") | m.Name("zeros") | m.Name("full"))
        if (
            m.matches(func, allocation)
            and dtype is not None
            and m.matches(dtype.value, m.Attribute(attr=m.Name("dtype")))
        ):
            # a workspace of partial sums in the input's fp16 / bf16 (`dtype=x.dtype`), where fp32 is meant
            self._add(
                node, [_replace_arg(node, dtype, cst.parse_expression("torch.float32"))], "dtype", "fp32_accumulator"
            )
        likes = m.Name("empty_like") | m.Name("zeros_like") | m.Name("full_like")
        like = m.Attribute(value=m.Name("torch"), attr=likes)
        if m.matches(func, like) and node.args and m.matches(node.args[0].value, m.Name()):
            # an output allocated like another tensor of forward (its dtype, its shape): `empty_like(grad)` for
            # `empty_like(exp_avg)`
            first = node.args[0]
            parent = self.get_metadata(ParentNodeProvider, node, None)
            target = {_code(t.target) for t in parent.targets} if isinstance(parent, cst.Assign) else set()
            others = sorted(self._tensors - {first.value.value} - target)  # type: ignore[attr-defined]
            self._add(
                node,
                [_replace_arg(node, first, cst.Name(o)) for o in others],
                "alloc_like",
                "output_dtype",
            )
        if m.matches(func, m.Attribute(value=m.Name(), attr=m.Name("numel") | m.Name("size") | m.Name("stride"))):
            name = func.value.value  # type: ignore[attr-defined]
            others = sorted(self._tensors - {name})
            self._add(
                node,
                [node.with_changes(func=func.with_changes(value=cst.Name(o))) for o in others],
                "host_tensor",
                "fix_layout",
            )
        if m.matches(func, m.Subscript(value=m.Name())):  # kernel[grid](...)
            self._stride_arguments(node)
        if m.matches(func, m.Subscript()) and len(node.args) >= 2:
            edits = []
            for i in range(len(node.args) - 1):
                a, b = node.args[i], node.args[i + 1]
                if a.keyword is None and b.keyword is None and a.star == "" and b.star == "":
                    args = list(node.args)
                    args[i], args[i + 1] = b.with_changes(comma=a.comma), a.with_changes(comma=b.comma)
                    edits.append(node.with_changes(args=args))
            self._add(node, edits, "launch_order", "fix_layout")
        elif m.matches(func, m.Attribute(attr=m.Name("stride") | m.Name("size"))) and len(node.args) == 1:
            arg = node.args[0]
            if m.matches(arg.value, m.Integer()):
                d = int(arg.value.evaluated_value)  # type: ignore[attr-defined]
                options = [_replace_arg(node, arg, cst.Integer(str(o))) for o in range(4) if o != d]
                options += [_replace_arg(node, arg, cst.parse_expression(o)) for o in ("-1",) if d != -1]
                self._add(node, options, "dimension", "fix_layout")


def _bound_arguments(call: cst.Call, params: list[str]) -> dict[str, cst.Arg]:
    """A launch's arguments by the kernel parameter they fill: by position (up to a `*args`), or by keyword."""
    bound: dict[str, cst.Arg] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is None and index < len(params):
            bound[params[index]] = arg
    bound.update({a.keyword.value: a for a in call.args if a.keyword is not None})
    return bound


#: Operators of integer arithmetic alone (bits, shifts, floor division, modulo): no root or factor of two applies.
_INTEGER_ONLY = cst.BitAnd | cst.BitOr | cst.BitXor | cst.LeftShift | cst.RightShift | cst.FloorDivide | cst.Modulo


def _names_blanked(expr: cst.BaseExpression) -> str:
    """`expr`'s code with every name but `tl` and the functions it calls made `_`."""
    return re.sub(r"\b(?!tl\b)[A-Za-z_]\w*\b(?!\s*\()", "_", _code(expr))


def _value_shape(expr: cst.BaseExpression) -> str:
    """`expr`'s names blanked and its subscripts emptied: values computed alike compare equal
    (`rows[:, None].to(tl.float32)` and `cols[None, :].to(tl.float32)`)."""
    return re.sub(r"\[[^\[\]]*\]", "[]", _names_blanked(expr))  # `[:, None]` and `[None, :]`: a broadcast either way


def _added_float_term(shape: str, sibling: str) -> str | None:
    """The ` + 0.5` (or ` - 0.5`) that `sibling`'s shape adds after all of `shape`'s, or None."""
    found = re.fullmatch(re.escape(shape) + r" ([+-]) (\d+\.\d*(?:e[+-]?\d+)?)", sibling)
    return f"{found.group(1)} {found.group(2)}" if found and "_" in shape else None


def _dtype_name(call: cst.Call) -> str | None:
    """The dtype a `tl.zeros` / `tl.full` call makes, as written (`tl.int64`), from `dtype=` or its last positional
    argument (`tl.zeros([B], tl.int32)`, `tl.full([B], 0, tl.int32)`); None where it names none that way."""
    given = _kwarg(call, "dtype")
    positional = [a for a in call.args if a.keyword is None]
    value = given.value if given is not None else positional[-1].value if len(positional) >= 2 else None
    if value is None or (m.matches(call.func, _tl("full")) and given is None and len(positional) < 3):
        return None
    return _code(value).replace(" ", "")


def _stored_value(store: cst.Call) -> cst.Arg | None:
    """The value argument of a `tl.store` call."""
    return _kwarg(store, "value") or (store.args[1] if len(store.args) > 1 and store.args[1].keyword is None else None)


def _number(node: cst.BaseExpression) -> bool:
    """A numeric literal other than 0 and 1 (a factor that changes something)."""
    if not isinstance(node, cst.Integer | cst.Float):
        return False
    return float(node.evaluated_value) not in (0.0, 1.0)


def _is(node: cst.CSTNode, operator: type) -> bool:
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, operator)


def _simple_term(text: str) -> bool:
    return text.replace("_", "").replace(".", "").isalnum()


def _abs(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """tl.abs(value), unless it is one already."""
    return None if m.matches(value, m.Call(func=_tl("abs"))) else cst.parse_expression(f"tl.abs({_code(value)})")


def _raw_loads(fn: cst.FunctionDef) -> set[str]:
    """Locals assigned a tl.load itself, not cast (`v = tl.load(p, ...)`; not `tl.load(...).to(tl.float32)`)."""
    return {
        node.targets[0].target.value  # type: ignore[attr-defined]
        for node in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())], value=m.Call(func=_tl("load"))))
        if isinstance(node, cst.Assign)
    }


def _numeric_constants(module: cst.Module) -> list[str]:
    """The module-level names assigned a number or an expression of numbers (`R = 16`, `GRID = 1 << 17`)."""
    found = []
    for statement in module.body:
        assign = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
            continue
        target = assign.targets[0].target
        leaves = m.findall(assign.value, m.Name() | m.Call() | m.SimpleString() | m.Attribute())
        if isinstance(target, cst.Name) and not leaves and m.findall(assign.value, m.Integer() | m.Float()):
            found.append(target.value)
    return found


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _narrow_integers(fn: cst.FunctionDef) -> set[str]:
    """Locals cast to int32 (`... .to(tl.int32)`). Program ids are int32 too, but their products outgrow 2^31 only
    on tensors of gigabytes, which no run here draws."""
    found = set()
    for node in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
        value = node.value  # type: ignore[attr-defined]
        narrowed = m.matches(value, m.Call(func=m.Attribute(attr=m.Name("to")), args=[m.Arg(value=_tl("int32"))]))
        if narrowed:
            found.add(node.targets[0].target.value)  # type: ignore[attr-defined]
    return found


def _masked_loads(fn: cst.FunctionDef) -> dict[str, str]:
    """Locals assigned a tl.load made under a mask (`v = tl.load(p, mask=m, other=0.0)`, also `.to(...)` of one),
    each with the mask as written: where the padding value is what fills the masked-off lanes."""
    found = {}
    for node in m.findall(fn, m.Assign(targets=[m.AssignTarget(target=m.Name())])):
        if not isinstance(node, cst.Assign):
            continue
        for call in m.findall(node.value, m.Call(func=_tl("load"))):
            mask = _kwarg(call, "mask") if isinstance(call, cst.Call) else None
            if mask is not None:
                found[node.targets[0].target.value] = _code(mask.value)  # type: ignore[attr-defined]
                break
    return found


def _running_max_factors(assigns: list, added: str) -> list[str]:
    """Where a loop keeps a running max (`m_new = tl.maximum(m, ...)`, then `m = m_new`) and what a carried value adds
    is an exponential taken against the new max (`tl.exp(x - m_new)`), the factor that brings the carried value to
    the new max: `tl.exp(m - m_new)` (or `tl.exp2`)."""
    values = {a.targets[0].target.value: a.value for a in assigns}
    found = []
    for new, expr in values.items():
        if not (isinstance(expr, cst.Call) and m.matches(expr.func, _tl("maximum")) and expr.args):
            continue
        old = expr.args[0].value
        if not isinstance(old, cst.Name) or not m.matches(values.get(old.value, cst.Name("_")), m.Name(new)):
            continue
        for exp in ("exp2", "exp"):
            if re.search(rf"\btl\.{exp}\([^()]*-\s*{new}\b", added):
                found.append(f"tl.{exp}({old.value} - {new})")
                break
    return found


def _unused_scalars(fn: cst.FunctionDef, pointers: set[str]) -> list[str]:
    """The scalar parameters (sizes, strides, offsets, constexprs) the kernel's body never reads."""
    read = _names(fn.body)  # type: ignore[arg-type]
    return [p.name.value for p in fn.params.params if p.name.value not in pointers and p.name.value not in read]


def _constexpr_params(fn: cst.FunctionDef | None) -> set[str]:
    """The parameters annotated tl.constexpr (block sizes and the like)."""
    if fn is None:
        return set()
    return {
        p.name.value
        for p in fn.params.params
        if p.annotation is not None and "constexpr" in _code(p.annotation.annotation)
    }


def _assignment(statement: cst.BaseStatement) -> tuple[str, frozenset[str]] | None:
    """(the name written, the names read) of a one-statement line `x = ...` or `x op= ...` (which reads x too)."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    node = statement.body[0]
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value, _names(node.value)
    if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
        return node.target.value, _names(node.value) | {node.target.value}
    return None


def _param_names(fn: cst.FunctionDef | None) -> set[str]:
    return {p.name.value for p in fn.params.params} if fn is not None else set()


def _single_assign(statement: cst.BaseStatement) -> cst.Assign | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        node = statement.body[0]
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            return node
    return None


def _with_value(statement: cst.BaseStatement, value: cst.BaseExpression) -> cst.BaseStatement:
    assert isinstance(statement, cst.SimpleStatementLine)
    return statement.with_changes(body=[statement.body[0].with_changes(value=value)])


def _same_kind(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    """Both calls of the same function (tl.program_id, tl.load, ...; a cast of one, `tl.load(...).to(...)`, too), or
    the same names combined in two ways (`tap // KS` and `tap % KS`)."""
    names = _names(a)
    if names and names == _names(b) and not isinstance(a, cst.Call) and not isinstance(b, cst.Call):
        return True
    a, b = _root_call(a), _root_call(b)
    return isinstance(a, cst.Call) and isinstance(b, cst.Call) and _code(a.func) == _code(b.func)


def _names(expr: cst.BaseExpression) -> frozenset[str]:
    return frozenset(n.value for n in m.findall(expr, m.Name()) if isinstance(n, cst.Name))


def _root_call(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The call a chain of method calls starts from (`tl.load(p)` of `tl.load(p).to(tl.float32)`)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call):
        expr = expr.func.value
    return expr


def _forward_tensors(fn: cst.FunctionDef) -> set[str]:
    """forward's tensor parameters and the tensors it makes (torch.empty..., x.contiguous())."""
    found = {p.name.value for p in fn.params.params if p.name.value != "self"}
    for name, value in _assigned_names(fn).items():
        if isinstance(value, cst.Call) and m.matches(
            value.func, m.Attribute(value=m.Name("torch")) | m.Attribute(attr=m.Name("contiguous"))
        ):
            found.add(name)
    return found


def _summands(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """Every term of a chain of additions (`a + b + c` -> a, b, c)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _summands(node.left) + _summands(node.right)
    return [node] if isinstance(node, cst.BaseExpression) else []


def _product_names(expr: cst.BaseExpression) -> list[str] | None:
    """The names a product of plain names multiplies (`B * H * W`, or one name), None for anything else."""
    if isinstance(expr, cst.Name):
        return [expr.value]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        left, right = _product_names(expr.left), _product_names(expr.right)
        return left + right if left is not None and right is not None else None
    return None


def _forward_sizes(fn: cst.FunctionDef) -> list[str]:
    """forward's names read from its tensors' sizes: `B, S, D = x.shape`, `N = x.numel()`, `n = x.shape[0]`,
    `m = x.size(1)`."""
    found: list[str] = []
    sized = m.Attribute(attr=m.Name("shape")) | m.Subscript(value=m.Attribute(attr=m.Name("shape")))
    measured = m.Call(func=m.Attribute(attr=m.Name("numel") | m.Name("size")))
    for node in m.findall(fn, m.Assign()):
        assert isinstance(node, cst.Assign)
        if len(node.targets) != 1 or not m.matches(node.value, sized | measured):
            continue
        target = node.targets[0].target
        names = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
        found += [n.value for n in names if isinstance(n, cst.Name) and n.value not in found]
    return found


def _mask_names(fn: cst.FunctionDef) -> set[str]:
    """Names given as `mask=` to the kernel's loads and stores."""
    found = set()
    for call in m.findall(fn, m.Call(func=_tl("load") | _tl("store"))):
        if isinstance(call, cst.Call):
            mask = _kwarg(call, "mask")
            if mask is not None and isinstance(mask.value, cst.Name):
                found.add(mask.value.value)
    return found


def _parsed(text: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return None


def _summand(expr: cst.BaseExpression) -> str:
    """`expr` as code that can be the left operand of `+`: parenthesized only where it binds less tightly."""
    bare = _bare(expr)
    tighter = isinstance(bare, cst.BinaryOperation) and isinstance(
        bare.operator, cst.Add | cst.Subtract | cst.Multiply | cst.Divide | cst.FloorDivide | cst.Modulo | cst.Power
    )
    return _code(bare) if tighter else _operand(bare)


def _paren(node: cst.BinaryOperation) -> cst.BinaryOperation:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _plus(expr: cst.BaseExpression, delta: int) -> cst.BaseExpression:
    if isinstance(expr, cst.Integer):
        value = int(expr.evaluated_value) + delta
        return cst.Integer(str(value)) if value >= 0 else cst.parse_expression(str(value))
    op = "+" if delta > 0 else "-"
    return cst.parse_expression(
        f"({_code(expr)}) {op} {abs(delta)}" if not _simple(expr) else f"{_code(expr)} {op} {abs(delta)}"
    )


def _replace_arg(call: cst.Call, old: cst.Arg, value: cst.BaseExpression) -> cst.Call:
    return call.with_changes(args=[a.with_changes(value=value) if a is old else a for a in call.args])


def edits(source: str) -> list[Edit]:
    """Every single-site edit of the operators, each with its edited source (unparseable sources give none),
    then each change made at several sites written the same way, made at all of them at once."""
    return list(_edits(source))


#: explain_failure's search and suggest_fix's plan the same candidate's edits (a second or more each, in libcst)
@functools.lru_cache(maxsize=8)
def _edits(source: str) -> tuple[Edit, ...]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return ()
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    collector = _Collector(_kernels(module), reach.stride_parameters(source))
    wrapper.visit(collector)
    positions = wrapper.resolve(PositionProvider)
    spans = _Spans(source, positions)
    found: list[Edit] = []
    seen: set[str] = {source}
    parents = wrapper.resolve(ParentNodeProvider)
    shapes: dict[tuple[str, str], list[_Place]] = {}
    for site in collector.sites:
        line = positions[site.line_of or site.node].start.line
        before = _code(site.node)
        for replacement in site.replacements:
            code = spans.replaced(module, {site.node: replacement})
            if code in seen:
                continue
            seen.add(code)
            shown_before, after = site.texts or (before, _code(replacement))
            found.append(Edit(line, site.operator, shown_before, after, site.fix, code))
            if site.texts is None and (change := _change(before, after)) is not None:
                statement = _statement(site.node, parents)
                at = spans.names_before(site.node, statement)
                place = _Place(line, site.node, replacement, change, _code(statement), at, site.fix)
                shapes.setdefault((site.operator, _renamed(place.statement)), []).append(place)
    for (operator, _statement_shape), places in shapes.items():
        if operator in UNCOPIED_OPERATORS:
            continue
        for anchor in places:
            copies = [p for p in places if p.line != anchor.line and anchor.copied_as(p)]
            if copies:
                _copied(found, seen, spans, module, operator, [anchor, *copies])
    return tuple(found)


@dataclass(frozen=True)
class _Place:
    """One single-site edit, as a candidate part of an edit of code copied to several lines."""

    line: int
    node: cst.CSTNode
    replacement: cst.CSTNode
    change: tuple[str, str]  # what it changes, without what it keeps (_change)
    statement: str  # the code of the statement it edits
    at: int  # how many names of the statement come before the edited code (-1: unknown)
    fix: str

    def copied_as(self, other: _Place) -> bool:
        """`other` is this edit made in a statement written the same way, its names renamed one for one, a name both
        statements use unrenamed (`W - 1` for `W` in `ix = gx * ...`, `H - 1` for `H` in `iy = gy * ...`; but not
        `rows * C + cols` in one load and `cols * R + rows` in the next)."""
        names, others = _IDENTIFIER.findall(self.statement), _IDENTIFIER.findall(other.statement)
        if len(names) != len(others) or self.at < 0 or self.at != other.at:
            return False  # not the same place in a statement written the same way
        renaming = dict(zip(names, others, strict=True))
        if len(set(renaming.values())) != len(renaming) or len(renaming) != len(set(names)):
            return False  # not one for one
        if any(renaming[n] != n for n in set(names) & set(others)):
            return False
        rename = lambda text: _IDENTIFIER.sub(lambda t: renaming.get(t.group(0), t.group(0)), text)  # noqa: E731
        return (rename(self.change[0]), rename(self.change[1])) == other.change


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _statement(node: cst.CSTNode, parents) -> cst.CSTNode:
    """The statement a node is part of."""
    while node in parents and not isinstance(node, cst.SimpleStatementLine):
        node = parents[node]
    return node


#: Edits never made at every statement written the same way: each output's allocation is its own (the outputs
#: allocated alike are usually meant to be).
UNCOPIED_OPERATORS = frozenset({"alloc_like"})


def _copied(found, seen, spans, module, operator: str, places: list[_Place]) -> None:
    """One edit making the change of `places[0]` at each of `places` (a slip copied, renamed or not), shown as the
    first place's change."""
    lines = sorted({p.line for p in places})
    code = spans.replaced(module, {p.node: p.replacement for p in places})
    if code in seen:
        return
    seen.add(code)
    first = min(places, key=lambda p: p.line)
    found.append(Edit(lines[0], operator, *first.change, first.fix, code, also=tuple(lines[1:])))


def _renamed(code: str) -> str:
    """Code with its names numbered in order of appearance: statements written the same way compare equal."""
    numbers: dict[str, str] = {}
    return _IDENTIFIER.sub(lambda match: numbers.setdefault(match.group(0), f"_{len(numbers)}"), code)


def _change(before: str, after: str) -> tuple[str, str] | None:
    """What an edit changes, without the text before and after it that it keeps (cut at word boundaries):
    `p + c * N + k` -> `p + k * C + c` changes `c * N + k` into `k * C + c`, whatever the pointer. None where
    the change has no name in it (`//` -> `%`: making every such change at once is no copied slip)."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    while start > 0 and (before[start - 1].isalnum() or before[start - 1] == "_"):
        start -= 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    while end > 0 and (before[len(before) - end].isalnum() or before[len(before) - end] == "_"):
        end -= 1
    core = before[start : len(before) - end], after[start : len(after) - end]
    return core if any(c.isalpha() for c in core[0]) else None


class _Spans:
    """Edited sources by splicing the replacements' code into the source text where each node was written (what
    regenerating the whole module for every edit would give, at a fraction of its cost); through libcst where
    a node's text is not found at its position or two nodes overlap."""

    def __init__(self, source: str, positions):
        self.source = source
        self.positions = positions
        self.line_starts = [0]
        for text in source.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(text))

    def _span(self, node: cst.CSTNode) -> tuple[int, int] | None:
        where = self.positions.get(node)
        if where is None:
            return None
        start = self.line_starts[where.start.line - 1] + where.start.column
        end = self.line_starts[where.end.line - 1] + where.end.column
        text = _code(node)
        if self.source[start:end] != text:  # a parenthesized node's position leaves its parentheses out
            start, end = start - len(getattr(node, "lpar", ())), end + len(getattr(node, "rpar", ()))
        return (start, end) if self.source[start:end] == text else None

    def names_before(self, node: cst.CSTNode, statement: cst.CSTNode) -> int:
        """How many names `statement` has before `node` (-1 where either is not found where it was written)."""
        inner, outer = self._span(node), self.positions.get(statement)
        if inner is None or outer is None:
            return -1
        start = self.line_starts[outer.start.line - 1] + outer.start.column
        return len(_IDENTIFIER.findall(self.source[start : inner[0]])) if start <= inner[0] else -1

    def replaced(self, module: cst.Module, replacements: dict[cst.CSTNode, cst.CSTNode]) -> str:
        spans = [(self._span(node), replacement) for node, replacement in replacements.items()]
        ordered = sorted(spans, key=lambda s: s[0] or (-1, -1), reverse=True)
        if (
            all(span is not None for span, _r in ordered)
            and all(
                later[0][0] >= earlier[0][1]  # type: ignore[index]
                for later, earlier in zip(ordered, ordered[1:], strict=False)
            )
        ):
            code = self.source
            for (start, end), replacement in ordered:  # type: ignore[misc]
                code = code[:start] + _code(replacement) + code[end:]
            return code
        edited = module.visit(_ReplaceAll({id(node): r for node, r in replacements.items()}))
        return edited.code


class _ReplaceAll(cst.CSTTransformer):
    """Replaces the nodes given (by identity in the tree it walks) with theirs."""

    def __init__(self, replacements: dict[int, cst.CSTNode]):
        super().__init__()
        self._replacements = replacements

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        return self._replacements.get(id(original_node), updated_node)


def value_lines(source: str, line: int) -> list[int]:
    """`line`, then the lines that assign the names it uses (two levels back), nearest first. Names are looked up
    in the function that uses them (a kernel's `H` is its parameter, not the host's variable of that name), then
    at module level; at a load or store, the names of its address come before those of its mask and value."""
    flow = _flow(source)
    if flow is None:
        return [line]
    scope_of, params, assigns, uses = flow

    def assigned(at: int, name: str) -> list[int]:
        scope = scope_of.get(at, 0)
        if (scope, name) in assigns:
            return assigns[(scope, name)]
        return [] if name in params.get(scope, set()) else assigns.get((0, name), [])

    order, frontier = [line], [line]
    for _ in range(2):
        nxt = []
        for at in frontier:
            for name in uses.get(at, ()):
                for where in assigned(at, name):
                    if where not in order:
                        order.append(where)
                        nxt.append(where)
        frontier = nxt
    return order


_Flow = tuple[dict[int, int], dict[int, set[str]], dict[tuple[int, str], list[int]], dict[int, list[str]]]


@functools.lru_cache(maxsize=8)
def _flow(source: str) -> _Flow | None:
    """Per statement line its scope, per scope its parameters, per (scope, name) the lines assigning it, per line
    the names it uses (address first): what value_lines walks, once per source (the plan asks for each located
    line). Not to be changed by callers (cached)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    scopes: list[cst.CSTNode] = [wrapper.module, *m.findall(wrapper.module, m.FunctionDef())]
    scope_of: dict[int, int] = {}  # statement line -> its innermost scope (index into scopes)
    params: dict[int, set[str]] = {i: _param_names(f) for i, f in enumerate(scopes) if isinstance(f, cst.FunctionDef)}
    assigns: dict[tuple[int, str], list[int]] = {}
    uses: dict[int, list[str]] = {}
    for i, scope in enumerate(scopes):  # functions after the module: the innermost scope is the last one seen
        for node in m.findall(scope, m.SimpleStatementLine() | m.For()):
            scope_of[positions[node].start.line] = i
    for node in m.findall(wrapper.module, m.For(target=m.Name())):  # `for k in ...` assigns k
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            start = positions[node].start.line
            assigns.setdefault((scope_of.get(start, 0), node.target.value), []).append(start)
    for statement in m.findall(wrapper.module, m.SimpleStatementLine()):
        start = positions[statement].start.line
        scope = scope_of.get(start, 0)
        for node in m.findall(statement, m.Assign() | m.AugAssign()):
            targets = node.targets if isinstance(node, cst.Assign) else [cst.AssignTarget(target=node.target)]  # type: ignore[attr-defined]
            for t in targets:
                for name in m.findall(t.target, m.Name()):
                    assigns.setdefault((scope, name.value), []).append(start)  # type: ignore[attr-defined]
        uses[start] = _names_address_first(statement)  # type: ignore[arg-type]
    return scope_of, params, assigns, uses


def _names_address_first(statement: cst.SimpleStatementLine) -> list[str]:
    """The names a statement uses: those of its loads' and stores' addresses first, then the others (sorted)."""
    address: set[str] = set()
    for call in m.findall(statement, m.Call(func=_tl("load") | _tl("store") | _tl("atomic_add"))):
        if isinstance(call, cst.Call) and call.args:
            address |= _names(call.args[0].value)
    every = _names(statement)  # type: ignore[arg-type]
    return sorted(address) + sorted(every - address)


def written_in(source: str, evidence: dict) -> str | None:
    """An experiment's own edit (`edit_before` -> `edit_after` at `line`, made from what it measured, not by an
    operator here) written in again, where that text occurs once on the line (None otherwise)."""
    line, before, after = evidence.get("line"), evidence.get("edit_before"), evidence.get("edit_after")
    lines = source.splitlines(keepends=True)
    if not isinstance(line, int | float) or not isinstance(before, str) or not isinstance(after, str) or not before:
        return None
    number = int(line)
    if not 1 <= number <= len(lines) or lines[number - 1].count(before) != 1:
        return None
    lines[number - 1] = lines[number - 1].replace(before, after)
    return "".join(lines)


def reproduce(
    source: str, line: int, before: str, after: str, also: tuple[int, ...] = (), line_after: str = ""
) -> str | None:
    """The candidate with the edit an earlier search found (by its lines and its text) applied again; of two alike
    edits on one line (`a.stride(0), a.stride(0)`), the one that leaves the line as `line_after` where it is given."""
    wanted = (line, before, after, also)
    alike = [e.source for e in edits(source) if (e.line, e.before, e.after, e.also) == wanted]
    exact = [edited for edited in alike if line_after and line_of(edited, line) == line_after]
    return (exact or alike or [None])[0]


def line_of(source: str, line: int) -> str:
    """The text of 1-based `line` of `source` ("" past its end)."""
    lines = source.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""
