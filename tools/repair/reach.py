"""Which tensor a line's value reaches: the memory access a repaired line feeds, read from the source.

A repair found by search names the line and the edit; an agent also wants the tensor that line reads or writes
wrongly. That follows from the kernel's data flow without running anything: the names the line assigns (or, for
a launch's argument, the kernel parameter it fills) flow through later assignments into the address, the mask,
the padding or the stored value of the kernel's loads and stores, and each access's pointer is a kernel parameter
the launch fills from one of forward's tensors (an input by its position in forward's signature, or a tensor
forward returns). The first access in this order is the answer: the line's own access, then addresses, masks,
paddings and stored values. A host line that allocates a returned tensor names that output.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools import pyast
from tools.models.diagnosis import Location

ACCESSES = {"load": "load", "store": "store", "atomic_add": "store", "atomic_max": "store", "atomic_min": "store"}
ROLES = ("address", "mask", "padding", "value")
#: Calls and attributes of a launch argument that make it a size, not a tensor (`x.stride(0)`, `x.shape[1]`).
SCALAR_MAKERS = {"stride", "shape", "size", "numel", "item", "len", "int", "float", "next_power_of_2", "cdiv", "dim"}


@dataclass(frozen=True)
class Reached:
    """The access a line feeds: the tensor (`input 1`, `output`, `output[0]` of a returned tuple), how, where."""

    tensor: str
    role: str  # "address", "mask", "padding", "value" (stored), "allocation", or "access" (the line is one)
    access: str  # "load", "store" or "allocation"
    line: int  # the access's line
    pointer: str  # the kernel's pointer parameter ('' for an allocation)
    argument: str  # forward's name for the tensor

    def describe(self) -> str:
        """E.g. 'the address of the load at line 40 from `k_ptr` (forward's `k_cache`)'."""
        if self.role == "allocation":
            return f"the allocation of forward's `{self.argument}`"
        whose = f"`{self.pointer}` (forward's `{self.argument}`)" if self.argument else f"`{self.pointer}`"
        access = f"the {self.access} at line {self.line} {'from' if self.access == 'load' else 'to'} {whose}"
        if self.role == "access":
            return access
        what = "the stored value" if self.role == "value" else f"the {self.role}"
        return f"{what} of {access}"

    def said_of(self, line: int) -> str:
        """E.g. 'line 34 sets the mask of the load at line 40 from ...', 'line 40 is the load from ...'."""
        return f"line {line} {'is' if self.role in ('access', 'allocation') else 'sets'} {self.describe()}"


def with_tensor(location: Location, source: str, before: str = "", edited: str = "") -> Location:
    """`location` with the tensor its line's value reaches and how (unchanged where it names one or none is found).
    `edited`: the source with the line's edit made, which tells the argument changed where `before` is written
    more than once (`a.stride(0), a.stride(0)`)."""
    line = location.line
    found = reached(source, line, before, edited) if line and not location.tensor else None
    if found is None or not line:
        return location
    return location.model_copy(update={"tensor": found.tensor, "access": found.said_of(line)})


@dataclass(frozen=True)
class _Access:
    line: int
    kind: str  # "load" / "store"
    parts: dict[str, ast.expr]  # role -> the argument


def reached(source: str, line: int, before: str = "", edited: str = "") -> Reached | None:
    """The access line `line` of `source` feeds (None: none found, or a source that does not parse). `before`:
    the edited code, to tell which argument of the line's own access (or launch) it is in; `edited`: the source
    with that edit made (the launch argument that differs in it is the one)."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return None
    kernel = _kernel_at(tree, line)
    if kernel is not None:
        return _first_access(source, tree, kernel, line, _assigned_at(kernel, line), before)
    for kernel, params, call in _launched_at(source, tree, line, before, _parsed(edited)):
        found = _first_access(source, tree, kernel, line, params, before="", launch=call)
        if found is not None:
            return found
    return _allocation(tree, line)


def _params(kernel: ast.FunctionDef) -> list[str]:
    return [a.arg for a in (*kernel.args.posonlyargs, *kernel.args.args)]


def _first_access(
    source: str,
    tree: ast.Module,
    kernel: ast.FunctionDef,
    line: int,
    start: set[str],
    before: str,
    launch: ast.Call | None = None,
):
    """`launch`: the launch whose arguments to name the tensors by (default: every launch of the kernel, which must
    agree: a kernel launched on different tensors names none)."""
    params = _params(kernel)
    tainted = _flows_from(kernel, start)
    accesses = sorted(_accesses(kernel), key=lambda a: (a.line != line, a.line))
    roles = ("access",) if not before and accesses and accesses[0].line == line else ROLES  # the line is one
    for role in roles:
        for access in accesses:
            part = access.parts.get("address" if role == "access" else role)
            if part is None:
                continue
            own = access.line == line and (not before or before in _code(source, part))
            if own or _names(part) & tainted:
                pointer = _base(tree, access.parts["address"], kernel, params)
                if pointer is None:
                    return None  # only scalar parameters in the address (a tensor descriptor's): no claim
                calls = [launch] if launch is not None else list(_launches(tree, kernel.name))
                names = {_root_name(a) for c in calls if (a := _launch_argument_of(c, params, pointer)) is not None}
                if len(names) != 1:
                    return None  # launches that pass different tensors (or none found): no claim
                argument = names.pop()
                tensor = _tensor(tree, argument, calls[0])
                return Reached(tensor, role, access.kind, access.line, pointer, argument) if tensor else None
    return None


def _kernel_at(tree: ast.Module, line: int) -> ast.FunctionDef | None:
    """The @triton.jit function whose body holds `line`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and _is_jit(node) and node.lineno <= line <= (node.end_lineno or 0):
            return node
    return None


def _is_jit(fn: ast.FunctionDef) -> bool:
    for decorator in fn.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
        if name in ("jit", "autotune", "heuristics"):
            return True
    return False


def _accesses(kernel: ast.FunctionDef) -> list[_Access]:
    found = []
    for call in ast.walk(kernel):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        kind = ACCESSES.get(call.func.attr)
        if kind is None or not call.args:
            continue
        keywords = {k.arg: k.value for k in call.keywords}
        positional: tuple[str, ...] = ("address", "mask", "padding") if kind == "load" else ("address", "value", "mask")
        parts: dict[str, ast.expr] = dict(zip(positional, call.args, strict=False))
        for keyword, role in (("mask", "mask"), ("other", "padding"), ("val", "value"), ("value", "value")):
            if keyword in keywords:
                parts[role] = keywords[keyword]
        found.append(_Access(call.lineno, kind, parts))
    return found


def _code(source: str, node: ast.AST) -> str:
    return ast.get_source_segment(source, node) or ast.unparse(node)


def _names(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _assignments(function: ast.FunctionDef) -> list[tuple[int, set[str], ast.AST]]:
    """(line, names assigned, value) of each assignment in the function, loop targets included."""
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            found.append((node.lineno, set().union(*(_names(t) for t in node.targets)), node.value))
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            found.append((node.lineno, _names(node.target), node.value))
        elif isinstance(node, ast.For):
            found.append((node.lineno, _names(node.target), node.iter))
    return found


def _assigned_at(kernel: ast.FunctionDef, line: int) -> set[str]:
    return set().union(*(names for at, names, _ in _assignments(kernel) if at == line))


def _flows_from(kernel: ast.FunctionDef, start: set[str]) -> set[str]:
    """The names whose values depend on `start` (every assignment whose value reads one of them, to a fixed
    point: a loop's carried values included)."""
    tainted = set(start)
    assignments = _assignments(kernel)
    changed = True
    while changed:
        changed = False
        for _, names, value in assignments:
            if _names(value) & tainted and not names <= tainted:
                tainted |= names
                changed = True
    return tainted


def _base(tree: ast.Module, pointer: ast.expr, kernel: ast.FunctionDef, params: list[str]) -> str | None:
    """The kernel parameter a pointer expression offsets, through the local names it is built from: the first
    parameter (in source order, depth first) the launch fills with a tensor."""
    definitions: dict[str, ast.AST] = {}
    for _, names, value in _assignments(kernel):
        for name in names:
            definitions.setdefault(name, value)
    found: list[str] = []
    seen: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "make_block_ptr":
            base = next((k.value for k in node.keywords if k.arg == "base"), node.args[0] if node.args else None)
            node = base if base is not None else node
        for name in _in_order(node):
            if name in params and name not in found:
                found.append(name)
            elif name in definitions and name not in seen:
                seen.add(name)
                visit(definitions[name])

    visit(pointer)
    tensors = [p for p in found if _is_tensor(tree, _launch_argument(tree, kernel.name, params, p))]
    return tensors[0] if tensors else None  # only scalar parameters (a tensor descriptor's sizes): no pointer


def _in_order(node: ast.AST) -> list[str]:
    """The names of an expression in source order (a pointer's base is written first: `x_ptr + offs`)."""
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    return [n.id for n in sorted(names, key=lambda n: (n.lineno, n.col_offset))]


def _launches(tree: ast.Module, kernel: str):
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Subscript):
            if isinstance(call.func.value, ast.Name) and call.func.value.id == kernel:
                yield call


def launch_arguments(source: str) -> dict[str, list[tuple[int, str]]]:
    """A kernel parameter -> (line, code) of each argument the module's launches (`kernel[grid](...)`) pass for
    it, by position (up to a `*args`) or by keyword."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, list[tuple[int, str]]] = {}
    for kernel in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _is_jit(n)):
        params = _params(kernel)
        for call in _launches(tree, kernel.name):
            for param in params:
                argument = _launch_argument_of(call, params, param)
                if argument is not None:
                    found.setdefault(param, []).append((argument.lineno, _code(source, argument)))
    return found


def _constexpr(arg: ast.arg) -> bool:
    return arg.annotation is not None and "constexpr" in ast.unparse(arg.annotation)


def _address_names(kernel: ast.FunctionDef, address: ast.expr) -> set[str]:
    """The names an address is made from, through the kernel's assignments (not a loop's range: a loop's bound is
    no part of the address its counter makes)."""
    names = _names(address)
    assignments = [
        (targets, value)
        for _, targets, value in _assignments(kernel)
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name) or value.func.id != "range"
    ]
    changed = True
    while changed:
        changed = False
        for targets, value in assignments:
            if targets & names and not _names(value) <= names:
                names |= _names(value)
                changed = True
    return names


def stride_parameters(source: str) -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """Per kernel: its parameters, and each scalar parameter an address is made from with the pointer parameters of
    those addresses (`x_ptr + rows * stride_x` -> {"stride_x": ["x_ptr"]}): what a launch passes as the strides and
    offsets of each tensor. Block sizes (constexpr) are no stride."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, tuple[list[str], dict[str, list[str]]]] = {}
    for kernel in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _is_jit(n)):
        params = _params(kernel)
        fixed = {a.arg for a in (*kernel.args.posonlyargs, *kernel.args.args) if _constexpr(a)}
        strides: dict[str, list[str]] = {}
        for access in _accesses(kernel):
            address = access.parts.get("address")
            pointer = _base(tree, address, kernel, params) if address is not None else None
            if address is None or pointer is None:
                continue
            for name in sorted(_address_names(kernel, address) & set(params) - fixed - {pointer}):
                if not _is_tensor(tree, _launch_argument(tree, kernel.name, params, name)):
                    strides.setdefault(name, [])
                    if pointer not in strides[name]:
                        strides[name].append(pointer)
        found[kernel.name] = (params, strides)
    return found


def _launch_argument(tree: ast.Module, kernel: str, params: list[str], param: str) -> ast.expr | None:
    """What the first launch `kernel[grid](...)` passes for `param` (None where none is found)."""
    return next((a for c in _launches(tree, kernel) if (a := _launch_argument_of(c, params, param)) is not None), None)


def _launched_at(
    source: str, tree: ast.Module, line: int, before: str, edited: ast.Module | None = None
) -> list[tuple[ast.FunctionDef, set[str], ast.Call]]:
    """The launches with an argument on `line` (the one the `edited` tree changes, else those holding `before`
    where one does): each kernel, the parameters those arguments fill, and the launch."""
    found = []
    for kernel in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _is_jit(n)):
        params = _params(kernel)
        edited_calls = list(_launches(edited, kernel.name)) if edited is not None else []
        for number, call in enumerate(_launches(tree, kernel.name)):
            filled = {p: _launch_argument_of(call, params, p) for p in params}
            on_line = {p: a for p, a in filled.items() if a is not None and a.lineno <= line <= (a.end_lineno or 0)}
            holding = {p for p, a in on_line.items() if before and before in _code(source, a)}
            if len(holding) > 1 and number < len(edited_calls):
                other = edited_calls[number]
                changed = {
                    p for p in holding if _unparsed(_launch_argument_of(other, params, p)) != _unparsed(filled[p])
                }
                holding = changed or holding
            if on_line:
                found.append((kernel, holding or set(on_line), call))
    return found


def _parsed(source: str) -> ast.Module | None:
    try:
        return pyast.parse(source) if source else None
    except SyntaxError:
        return None


def _unparsed(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else ""


def _launch_argument_of(call: ast.Call, params: list[str], param: str) -> ast.expr | None:
    """What one launch passes for `param`: by keyword, or by position where no `*args` comes before it."""
    keyword = next((k.value for k in call.keywords if k.arg == param), None)
    index = params.index(param)
    if (
        keyword is None
        and index < len(call.args)
        and not any(isinstance(a, ast.Starred) for a in call.args[: index + 1])
    ):
        return call.args[index]
    return keyword


def _root_name(node: ast.expr) -> str:
    names = _in_order(node)
    return names[0] if names else ""


def _is_tensor(tree: ast.Module, argument: ast.expr | None) -> bool:
    """A launch argument that is a tensor, not a size: no `.stride()` / `.shape` / `int()` in it, and a name not
    assigned from such a size or a number."""
    if argument is None:
        return True  # unknown: do not rule it out
    if _makes_scalar(argument):
        return False
    name = argument.id if isinstance(argument, ast.Name) else None
    if name is None:
        return True
    values = [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and any(name in _names(t) for t in n.targets)
    ]
    return not values or not all(_makes_scalar(v) for v in values)


def _makes_scalar(node: ast.AST) -> bool:
    """An expression whose value is a size, not a tensor, judged by its outermost operation: a number, `x.shape[i]`,
    `x.stride(i)` / `.size()` / `.numel()` / `.item()`, `int(...)`, `triton.cdiv(...)`, or arithmetic of such."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float)
    if isinstance(node, ast.BinOp):
        return _makes_scalar(node.left) or _makes_scalar(node.right)
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in SCALAR_MAKERS
    return False


def _tensor(tree: ast.Module, argument: str, launch: ast.Call) -> str | None:
    """`input k` where the launch is in the model's forward and forward takes `argument` as its k-th argument,
    `output` (`output[k]` in a returned tuple) where forward returns it, else the name as written (a launch in a
    helper function names that function's variables: not matched to forward's)."""
    if not argument:
        return None
    forward = model_forward(tree)
    if forward is None or not forward.lineno <= launch.lineno <= (forward.end_lineno or 0):
        return f"`{argument}`"
    inputs = [a.arg for a in (*forward.args.posonlyargs, *forward.args.args)][1:]  # after self
    if argument in inputs:
        return f"input {inputs.index(argument)}"
    return _returned(forward, argument) or f"`{argument}`"


def forward_arguments(source: str) -> list[str]:
    """The names the model's forward gives its inputs (after `self`): `input k` is the k-th."""
    try:
        forward = model_forward(pyast.parse(source))
    except SyntaxError:
        return []
    return [a.arg for a in (*forward.args.posonlyargs, *forward.args.args)][1:] if forward is not None else []


def model_forward(tree: ast.Module) -> ast.FunctionDef | None:
    """The forward of the candidate's model (ModelNew, else the first class method `forward(self, ...)`; an
    autograd Function's `forward(ctx, ...)` is not it)."""
    methods = [
        (cls.name, fn)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for fn in cls.body
        if isinstance(fn, ast.FunctionDef) and fn.name == "forward" and fn.args.args and fn.args.args[0].arg == "self"
    ]
    return next((fn for name, fn in methods if name == "ModelNew"), methods[0][1] if methods else None)


def _returned(forward: ast.FunctionDef, name: str) -> str | None:
    for node in ast.walk(forward):
        if isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Tuple):
                for k, element in enumerate(node.value.elts):
                    if name in _names(element):
                        return f"output[{k}]"
            elif name in _names(node.value):
                return "output"
    return None


def _allocation(tree: ast.Module, line: int) -> Reached | None:
    """A line of forward that assigns a tensor forward returns: that output's allocation."""
    forward = model_forward(tree)
    if forward is None or not forward.lineno <= line <= (forward.end_lineno or 0):
        return None
    for at, names, _ in _assignments(forward):
        if at == line:
            for name in sorted(names):
                output = _returned(forward, name)
                if output is not None:
                    return Reached(output, "allocation", "allocation", line, "", name)
    return None


def twin_accesses(source: str) -> dict[int, list[int]]:
    """Per line of a load (or store), the lines of the other loads (stores) of its kernel at the same address as
    written (`qy` loaded from `q_ptr + rows * 2 + 0`, the address of `qx` above it; two stores to `out_ptr + offs`):
    a kernel has no reason to read one address twice by one expression, nor to overwrite what it just stored, so
    where a diagnosis points at one of them the other is as likely the wrong one."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return {}
    twins: dict[int, list[int]] = {}
    for kernel in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _is_jit(n)):
        by_address: dict[tuple[str, str], list[int]] = {}
        for access in _accesses(kernel):
            if "address" in access.parts:
                by_address.setdefault((access.kind, ast.dump(access.parts["address"])), []).append(access.line)
        for lines in by_address.values():
            for line in lines:
                others = [other for other in lines if other != line]
                if others:
                    twins[line] = twins.get(line, []) + others
    return twins


def accesses_of(source: str, tensor: str, kind: str = "load") -> list[int]:
    """The lines of the loads (or stores: `kind`) whose pointer every launch fills from `tensor` (`input 1`,
    `output`), in source order: where a kernel reads or writes that tensor, so where an experiment that names the
    tensor (read in another layout, left partly unwritten) points."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    lines: list[int] = []
    for kernel in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _is_jit(n)):
        params = _params(kernel)
        calls = list(_launches(tree, kernel.name))
        for access in _accesses(kernel):
            if access.kind != kind or "address" not in access.parts:
                continue
            pointer = _base(tree, access.parts["address"], kernel, params)
            if pointer is None or not calls:
                continue
            filled = {
                _tensor(tree, _root_name(a), c)
                for c in calls
                if (a := _launch_argument_of(c, params, pointer)) is not None
            }
            if filled == {tensor} and access.line not in lines:
                lines.append(access.line)
    return sorted(lines)


def feeding_lines(source: str, line: int) -> set[int]:
    """The lines of the kernel holding `line` whose values reach it: every assignment (a loop's target, an
    accumulation) to a name the line reads, and to the names those read, to a fixed point; `line` itself
    included. Empty where the line is in no kernel or the source does not parse."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return set()
    kernel = _kernel_at(tree, line)
    if kernel is None:
        return set()
    statement = next(
        (s for s in ast.walk(kernel) if isinstance(s, ast.stmt) and s.lineno == line and s is not kernel), None
    )
    if statement is None:
        return set()
    needed = _names(statement)
    fed = {line}
    assignments = _assignments(kernel)
    changed = True
    while changed:
        changed = False
        for at, names, value in assignments:
            if at not in fed and names & needed:
                fed.add(at)
                needed |= _names(value)
                changed = True
    return fed


def not_fed_by(source: str, load: int, store: int) -> bool:
    """The load at line `load` and the store at line `store` are in one kernel and the store's value, address and mask
    are made without the load's value (feeding_lines): what that load's lanes read says nothing of the elements
    that store writes. False where they are in different kernels (a workspace between them) or it cannot be told."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return False
    kernel = _kernel_at(tree, store)
    if kernel is None or _kernel_at(tree, load) is not kernel:
        return False
    fed = feeding_lines(source, store)
    return bool(fed) and load not in fed


def launched_parameter_lines(source: str, line: int) -> list[int]:
    """The host lines where the launches pass the kernel parameters that `line`'s value is made from (a stride, a
    size), in the order the parameters are declared: where a kernel line's own arithmetic ends, its inputs begin."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    kernel = _kernel_at(tree, line)
    if kernel is None:
        return []
    fed = feeding_lines(source, line)
    used = set().union(*(_names(s) for s in ast.walk(kernel) if isinstance(s, ast.stmt) and s.lineno in fed))
    passed = launch_arguments(source)
    found: list[int] = []
    for param in _params(kernel):
        for at, _code_text in passed.get(param, []) if param in used else []:
            if at not in found:
                found.append(at)
    return found


#: Calls that make one value of many elements: a reduction.
_REDUCTIONS = frozenset({"sum", "max", "min", "reduce", "xor_sum", "argmax", "argmin"})


def shared_value_lines(source: str) -> list[int]:
    """The kernels' lines that make a value shared by many elements: the reductions (`tl.sum(x, axis=0)`), the last
    first (nearest the stores that use them), then the loads of one address (`tl.load(sigma_ptr)`: a value another
    kernel made, whose reduction is where a repair belongs)."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    reductions: set[int] = set()
    loads: set[int] = set()
    for kernel in (f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and _is_jit(f)):
        for statement in (s for s in ast.walk(kernel) if isinstance(s, ast.Assign | ast.AugAssign)):
            for call in (c for c in ast.walk(statement) if isinstance(c, ast.Call)):
                name = call.func.attr if isinstance(call.func, ast.Attribute) else None
                if name in _REDUCTIONS:
                    reductions.add(statement.lineno)
                elif name == "load" and call.args and isinstance(call.args[0], ast.Name):
                    loads.add(statement.lineno)
    return sorted(reductions, reverse=True) + sorted(loads - reductions, reverse=True)
