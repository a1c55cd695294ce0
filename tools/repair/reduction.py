"""deterministic_reduction: a split reduction through tl.atomic_add -> per-split partials in a
workspace, summed in a fixed order by a second kernel.

The idiom (split-K matmul, a row sum split over column blocks): several programs that differ only
in their "split" program ids add partial results into the same output elements with
tl.atomic_add, so the order of the float additions (and the bits of the result) depends on
scheduling. The patch finds the split axes (the program ids the atomic's address does not depend
on), gives each split its own slice of a zeroed workspace (the atomic becomes a tl.store into
slice `split id`), and after the launch adds the slices to the output in a fixed order (split 0,
1, ...), so the result is the same every run and the output keeps what it held before (like the
atomics, the partials are added to it).

It patches one atomic_add of one kernel with one launch, outside loops (a program that adds to
the same element repeatedly cannot become a store), whose output is contiguous (asserted at run
time); anything else returns None and the fix stays guidance. Verification re-runs the patched
candidate: it must pass and launch no atomics.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from tools.repair.patches import _code, _find, _names, _tl, parse

WORKSPACE = "_split_partials"
STRIDE_PARAM = "split_stride"
SUM_KERNEL = "_fixed_order_split_sum"

SUM_KERNEL_SOURCE = f'''

@triton.jit
def {SUM_KERNEL}(partials_ptr, out_ptr, numel, splits, BLOCK: tl.constexpr):
    """out += partials[0] + partials[1] + ... in this order: the same bits every run."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    total = tl.load(partials_ptr + offs, mask=mask, other=0)
    for s in range(1, splits):
        total += tl.load(partials_ptr + s * numel + offs, mask=mask, other=0)
    prev = tl.load(out_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, prev + total, mask=mask)
'''


def _program_axes(node: cst.CSTNode, deps: dict[str, set[int]]) -> set[int]:
    """The program-id axes an expression depends on (through names assigned in the kernel)."""
    axes: set[int] = set()
    for call in _find(node, m.Call(func=_tl("program_id")), cst.Call):
        arg = call.args[0].value if call.args else None
        axes.add(int(arg.evaluated_value) if isinstance(arg, cst.Integer) else -1)  # -1: an axis not known statically
    for name in _names(node):
        axes |= deps.get(name, set())
    return axes


def _assignments(fn: cst.FunctionDef) -> tuple[dict[str, set[int]], dict[str, list[cst.BaseExpression]]]:
    """Per local name: the program axes it depends on, and the expressions assigned to it."""
    deps: dict[str, set[int]] = {}
    values: dict[str, list[cst.BaseExpression]] = {}
    pairs: list[tuple[str, cst.BaseExpression]] = []
    for node in m.findall(fn, m.Assign() | m.AugAssign() | m.For()):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    pairs.append((t.target.value, node.value))
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            pairs.append((node.target.value, node.value))
        elif isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            pairs.append((node.target.value, node.iter))
    for name, value in pairs:
        values.setdefault(name, []).append(value)
    for _ in range(len(pairs) + 1):  # to a fixed point (names used before their last assignment)
        changed = False
        for name, value in pairs:
            new = _program_axes(value, deps)
            if not new <= deps.get(name, set()):
                deps[name] = deps.get(name, set()) | new
                changed = True
        if not changed:
            break
    return deps, values


def _pointer_base(expr: cst.BaseExpression, params: set[str], values, depth: int = 0) -> str | None:
    """The pointer parameter an address is built on: the bare-name term of its sum, followed
    through local assignments (`row_ptr = out_ptr + row * stride`)."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Name):
        if expr.value in params:
            return expr.value
        assigned = values.get(expr.value, [])
        return _pointer_base(assigned[0], params, values, depth + 1) if len(assigned) == 1 else None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        for side in (expr.left, expr.right):
            base = _pointer_base(side, params, values, depth + 1)
            if base is not None:
                return base
    return None


class _Site(cst.CSTVisitor):
    """The kernels, their atomic_add calls (and whether each sits in a loop or is used as a value)."""

    def __init__(self):
        super().__init__()
        self.kernels: dict[str, cst.FunctionDef] = {}
        self.atomics: list[tuple[str, cst.Call, bool]] = []  # (kernel, call, usable)
        self._fn: list[str] = []
        self._loops = 0
        self._statement_call: cst.Call | None = None

    def visit_FunctionDef(self, node):
        jit = any(m.matches(d.decorator, m.Attribute(attr=m.Name("jit")) | m.Call()) for d in node.decorators)
        self._fn.append(node.name.value)
        if jit and node.decorators:
            self.kernels[node.name.value] = node

    def leave_FunctionDef(self, node):
        self._fn.pop()

    def visit_For(self, node):
        self._loops += 1

    def leave_For(self, node):
        self._loops -= 1

    def visit_While(self, node):
        self._loops += 1

    def leave_While(self, node):
        self._loops -= 1

    def visit_Expr(self, node):
        self._statement_call = node.value if isinstance(node.value, cst.Call) else None

    def visit_Call(self, node):
        if m.matches(node.func, _tl("atomic_add")) and self._fn:
            usable = self._loops == 0 and node is self._statement_call
            self.atomics.append((self._fn[-1], node, usable))


class _KernelRewrite(cst.CSTTransformer):
    """In the kernel: the atomic_add -> tl.store into the split's slice; a split-stride parameter."""

    def __init__(self, kernel: str, call: cst.Call, split_id: str):
        super().__init__()
        self.kernel, self.call, self.split_id = kernel, call, split_id

    def leave_Call(self, original, updated):
        if original is not self.call:
            return updated
        ptr, value = updated.args[0], updated.args[1]
        mask = next((a for a in updated.args if a.keyword is not None and a.keyword.value == "mask"), None)
        if mask is None and len(updated.args) > 2 and updated.args[2].keyword is None:
            mask = updated.args[2]
        offset = f"({_code(ptr.value)}) + ({self.split_id}) * {STRIDE_PARAM}"
        text = f"tl.store({offset}, {_code(value.value)}" + (f", mask={_code(mask.value)})" if mask else ")")
        return cst.parse_expression(text)

    def leave_FunctionDef(self, original, updated):
        if original.name.value != self.kernel:
            return updated
        params = list(updated.params.params)
        params[-1] = params[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        params.append(cst.Param(name=cst.Name(STRIDE_PARAM)))
        return updated.with_changes(params=updated.params.with_changes(params=params))


class _LaunchRewrite(cst.CSTTransformer):
    """At the launch: a zeroed workspace for the output argument, then the fixed-order sum."""

    def __init__(self, kernel: str, position: int, param: str, splits: list[int]):
        super().__init__()
        self.kernel, self.position, self.param, self.splits = kernel, position, param, splits
        self.launches = 0

    def leave_SimpleStatementLine(self, original, updated):
        stmt = updated.body[0] if len(updated.body) == 1 else None
        call = stmt.value if isinstance(stmt, cst.Expr) else None
        if not (
            isinstance(stmt, cst.Expr)
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Subscript)
            and m.matches(call.func.value, m.Name(self.kernel))
        ):
            return updated
        positional = [a for a in call.args if a.keyword is None]
        if self.position < len(positional):
            out_arg = positional[self.position]
        else:
            out_arg = next((a for a in call.args if a.keyword is not None and a.keyword.value == self.param), None)
        grid_index = call.func.slice[0].slice if len(call.func.slice) == 1 else None
        if out_arg is None or not isinstance(grid_index, cst.Index):  # kernel[grid], not kernel[a:b]
            return updated
        self.launches += 1
        out = _code(out_arg.value)
        grid = _code(grid_index.value)
        meta = ", ".join(f"{a.keyword.value}={_code(a.value)}" for a in call.args if a.keyword is not None)
        args = [a.with_changes(value=cst.Name(WORKSPACE)) if a is out_arg else a for a in call.args]
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(
            cst.Arg(
                keyword=cst.Name(STRIDE_PARAM),
                value=cst.parse_expression("_split_out.numel()"),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                ),
            )
        )
        launch = call.with_changes(
            func=call.func.with_changes(slice=[cst.SubscriptElement(cst.Index(cst.Name("_split_grid")))]),
            args=args,
        )
        splits = " * ".join(f"_split_grid_t[{s}]" for s in self.splits)
        before = [
            f"_split_out = {out}",
            "assert _split_out.is_contiguous(), 'deterministic split sum: the output must be contiguous'",
            f"_split_grid = {grid}",
            f"_split_grid_t = tuple(_split_grid(dict({meta})) if callable(_split_grid) else _split_grid) + (1, 1)",
            f"_splits = {splits}",
            "_split_dtype = torch.promote_types(_split_out.dtype, torch.float32) "
            "if _split_out.is_floating_point() else _split_out.dtype",
            f"{WORKSPACE} = torch.zeros((_splits, _split_out.numel()), device=_split_out.device, dtype=_split_dtype)",
        ]
        after = (
            f"{SUM_KERNEL}[(triton.cdiv(_split_out.numel(), 1024),)]"
            f"({WORKSPACE}, _split_out, _split_out.numel(), _splits, BLOCK=1024)"
        )
        return cst.FlattenSentinel(
            [
                *(cst.parse_statement(s) for s in before),
                updated.with_changes(body=[stmt.with_changes(value=launch)]),
                cst.parse_statement(after),
            ]
        )


def deterministic_reduction(source: str) -> str | None:
    tree = parse(source)
    if tree is None:
        return None
    site = _Site()
    tree.visit(site)
    if len(site.atomics) != 1 or not site.atomics[0][2] or site.atomics[0][0] not in site.kernels:
        return None
    kernel, call, _ = site.atomics[0]
    fn = site.kernels[kernel]
    params = [p.name.value for p in fn.params.params]
    deps, values = _assignments(fn)
    used = _program_axes(fn.body, deps)
    address = _program_axes(call.args[0].value, deps)
    splits = sorted(used - address)
    base = _pointer_base(call.args[0].value, set(params), values)
    if not splits or base is None:
        return None  # one program per output element: the atomics add in one order already
    split_id = " + ".join(
        f"tl.program_id({s})" + "".join(f" * tl.num_programs({t})" for t in splits[:i]) for i, s in enumerate(splits)
    )
    patched = tree.visit(_KernelRewrite(kernel, call, split_id))
    launch = _LaunchRewrite(kernel, params.index(base), base, splits)
    patched = patched.visit(launch)
    if launch.launches != 1:
        return None
    code = patched.code
    # the fixed-order sum kernel, after the last import
    lines = code.splitlines(keepends=True)
    last_import = max((i for i, line in enumerate(lines) if line.startswith(("import ", "from "))), default=-1)
    return "".join(lines[: last_import + 1]) + SUM_KERNEL_SOURCE + "".join(lines[last_import + 1 :])
