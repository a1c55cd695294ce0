"""The output's allocation in the host code: where a tensor of the wrong dtype is made, and that allocation
in the reference's dtype.

A dtype_mismatch is a structural fact of the run (the output's dtype is not the reference's); where it
comes from is the `forward` line that allocates the output: an explicit `dtype=` naming the wrong
dtype, or an allocation without one (torch's default float32, or `*_like` of an input of another dtype).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from tools.repair.syntax import code as _code
from tools.repair.syntax import kwarg as _kwarg

#: torch functions that make a new tensor (the ones a forward allocates its outputs with).
ALLOCATORS = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "empty_strided")
#: dtype names torch spells in two ways.
_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32"}


@dataclass(frozen=True)
class Allocation:
    line: int
    code: str  # the call, as written
    dtype: str | None  # the dtype= argument as written, None when absent


def _allocator(call: cst.Call) -> bool:
    return m.matches(
        call.func,
        m.Attribute(value=m.Name("torch"), attr=m.OneOf(*(m.Name(a) for a in ALLOCATORS)))
        | m.Attribute(attr=m.OneOf(m.Name("new_empty"), m.Name("new_zeros"), m.Name("new_full"))),
    )


def _forward_calls(module: cst.Module) -> list[cst.Call]:
    calls = []
    for fn in m.findall(module, m.FunctionDef(name=m.Name("forward"))):
        calls += [c for c in m.findall(fn, m.Call()) if isinstance(c, cst.Call) and _allocator(c)]
    return calls


def allocations(source: str) -> list[Allocation]:
    """Every tensor allocation in the candidate's forward, in source order."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return []
    positions = wrapper.resolve(PositionProvider)
    found = []
    for call in _forward_calls(wrapper.module):
        dtype = _kwarg(call, "dtype")
        found.append(Allocation(positions[call].start.line, _code(call), _code(dtype.value) if dtype else None))
    return found


def _names(dtype_text: str, tensors: dict[str, str]) -> str:
    """`torch.float32` -> `float32`, `torch.float` -> `float32`, `x.dtype` -> x's dtype where `tensors` knows it."""
    base, _, name = dtype_text.rpartition(".")
    if name == "dtype" and base in tensors:
        return tensors[base]
    return _ALIASES.get(name, name)


def forward_parameters(source: str) -> list[str]:
    """The names of the candidate's forward parameters after self, in order (they receive the task's inputs)."""
    found = _forward(source)
    return [p.name.value for p in found[0].params.params][1:] if found is not None else []


def locate(
    source: str, actual_dtype: str, tensors: dict[str, str] | None = None, output: str = "output"
) -> Allocation | None:
    """The allocation the output of `actual_dtype` most likely comes from: the one whose dtype= names it (a dtype,
    or `x.dtype` of a tensor `tensors` gives the dtype of), the returned tensor's where several do (a float32
    workspace beside it); else, the only allocation without dtype= (its dtype is the default's or another
    tensor's); else None."""
    made = allocations(source)
    known = tensors or {}
    naming = [a for a in made if a.dtype is not None and _names(a.dtype, known) == actual_dtype]
    if len(naming) > 1:
        returned = shape_lines(source, output)[:1]
        naming = [a for a in naming if a.line in returned] or naming
    if len(naming) == 1:
        return naming[0]
    untyped = [a for a in made if a.dtype is None]
    return untyped[0] if not naming and len(untyped) == 1 else None


class _Retype(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, line: int, dtype: str):
        super().__init__()
        self.line, self.dtype, self.done = line, dtype, False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        position = self.get_metadata(PositionProvider, original, None)
        at = position.start.line if isinstance(position, CodeRange) else None
        if self.done or not _allocator(original) or at != self.line:
            return updated
        self.done = True
        value = cst.parse_expression(f"torch.{self.dtype}")
        given = _kwarg(updated, "dtype")
        if given is not None:
            return updated.with_changes(args=[a.with_changes(value=value) if a is given else a for a in updated.args])
        args = list(updated.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        return updated.with_changes(args=[*args, cst.Arg(value=value, keyword=cst.Name("dtype"), equal=equal)])


def retyped(source: str, line: int, dtype: str) -> str | None:
    """The candidate with the allocation at `line` made in torch.`dtype`; None when there is none there."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return None
    transformer = _Retype(line, dtype)
    edited = wrapper.visit(transformer)
    return edited.code if transformer.done and edited.code != source else None


def from_evidence(source: str, evidence: dict) -> str | None:
    """output_dtype's patch from a dtype_mismatch diagnosis' evidence (the allocation's line, the expected dtype)."""
    line, expected = evidence.get("allocation_line"), evidence.get("expected_dtype")
    if not isinstance(line, int | float) or not isinstance(expected, str):  # evidence numbers are floats
        return None
    return retyped(source, int(line), expected)


#: How many assignments back from the returned tensor shape_lines follows (the allocation, its sizes, theirs).
SHAPE_HOPS = 3


def _output_index(name: str) -> int | None:
    """`output[1]` -> 1, `output` -> None (the forward returns one tensor or its whole value is meant)."""
    inner = name.removeprefix("output")
    return int(inner[1:-1]) if inner.startswith("[") and inner[1:-1].isdigit() else None


def _assignments(fn: cst.FunctionDef, positions) -> dict[str, list[tuple[int, cst.CSTNode]]]:
    """name -> [(line, assigned value)] for every plain or unpacking assignment in a function, in order."""
    found: dict[str, list[tuple[int, cst.CSTNode]]] = {}
    for assign in m.findall(fn, m.Assign()):
        if not isinstance(assign, cst.Assign):
            continue
        line = positions[assign].start.line
        for target in assign.targets:
            for name in m.findall(target.target, m.Name()):
                if isinstance(name, cst.Name):
                    found.setdefault(name.value, []).append((line, assign.value))
    return found


def _read_names(node: cst.CSTNode) -> list[str]:
    """The plain names an expression reads, in order of appearance (`self.N` reads self; an attribute's own name is
    no variable); of an allocation, only what sets its shape (not `dtype=`, `device=`)."""
    if isinstance(node, cst.Call) and _allocator(node):
        node = node.with_changes(args=[a for a in node.args if a.keyword is None or a.keyword.value == "size"])
    attrs = {id(a.attr) for a in m.findall(node, m.Attribute()) if isinstance(a, cst.Attribute)}
    keywords = {id(a.keyword) for a in m.findall(node, m.Arg()) if isinstance(a, cst.Arg) and a.keyword}
    names = [n.value for n in m.findall(node, m.Name()) if isinstance(n, cst.Name) and id(n) not in attrs | keywords]
    return list(dict.fromkeys(names))


def _forward(source: str):
    """(forward's FunctionDef, positions), or None where the source does not parse or has no forward."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return None
    positions = wrapper.resolve(PositionProvider)
    fn = next((f for f in m.findall(wrapper.module, m.FunctionDef(name=m.Name("forward")))), None)
    return (fn, positions) if isinstance(fn, cst.FunctionDef) else None


def _origins(fn: cst.FunctionDef, positions, names: list[str], lines: list[int]) -> list[int]:
    """`lines`, then the assignments of `names` and of the names those read, SHAPE_HOPS deep, nearest first (a
    name's last assignment: the one in force where it is used)."""
    assigned = _assignments(fn, positions)
    lines, seen = list(lines), set()
    for _ in range(SHAPE_HOPS):
        reads: list[str] = []
        for name in (n for n in names if n not in seen):
            seen.add(name)
            for line, node in assigned.get(name, [])[-1:]:
                if line not in lines:
                    lines.append(line)
                reads += _read_names(node)
        names = reads
    return lines


def shape_lines(source: str, output_name: str) -> list[int]:
    """The forward lines an output's shape comes from, nearest first: the assignment of the tensor it returns
    (the allocation), then the assignments of the names that one reads, SHAPE_HOPS deep. A size computed one
    short (`n_out = N - K` for `N - K + 1`) lies on one of them. [] when the return cannot be followed."""
    found = _forward(source)
    if found is None:
        return []
    fn, positions = found
    returns = [r for r in m.findall(fn, m.Return()) if isinstance(r, cst.Return) and r.value is not None]
    if len(returns) != 1:
        return []
    value = returns[0].value
    if value is None:
        return []
    index = _output_index(output_name)
    if index is not None and isinstance(value, cst.Tuple | cst.List) and index < len(value.elements):
        value = value.elements[index].value
    return _origins(fn, positions, _read_names(value), [])


def grid_lines(source: str) -> list[int]:
    """The forward lines that size the launch grids, nearest first: each launch `kernel[grid](...)`, then the
    assignments of what its grid reads, SHAPE_HOPS deep. Output slices no program wrote come from one of them."""
    found = _forward(source)
    if found is None:
        return []
    fn, positions = found
    launches = [
        c
        for c in m.findall(fn, m.Call(func=m.Subscript()))
        if isinstance(c, cst.Call) and isinstance(c.func, cst.Subscript)
    ]
    names = [n for c in launches for e in c.func.slice for n in _read_names(e.slice)]  # type: ignore[attr-defined]
    return _origins(fn, positions, names, [positions[c].start.line for c in launches])
