"""The lane_offset experiment: a load whose lanes read one element off from the one the reference needs.

The access trace gives, for each sampled output element, the element of each input that the storing lane read at
each load line, and the few elements the reference computes it from. Where one needed element is read by no load
of that input at that lane while a load reads an element nothing needs, or the same element another load of that
input reads too (a channel loaded twice: `base + s_c` for the blue byte as for the green), that load's address is
off by the coordinates between the two, the same on most wrong samples. That is a fact of the trace; which load is
the slip (of two reading the same element) and what the address should be is not: the load's address moved by
that offset times the kernel's own stride parameter for each such dimension (the parameter the launch passes
`x.stride(d)` for) is written into the candidate and re-run, on the failing seed and another. An edit that passes
locates the bug and is the patch; none passing says nothing.
"""

from __future__ import annotations

import ast
import re
import time
from collections import Counter
from dataclasses import dataclass

import torch

from tools import pyast
from tools import thresholds as T
from tools.diagnosis import repair
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors import flat_index
from tools.diagnosis.experiments import Result, unexplained_output
from tools.diagnosis.registry import experiment
from tools.diagnosis.traced import TracedSample
from tools.diagnosis.trials import UNCHANGED_INPUTS, TrialBudgetExceeded, TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome
from tools.repair import reach
from tools.repair.edits import Edit
from tools.repair.source import SourceFacts

ID = "lane_offset"
QUESTION = (
    "does a load read, at the lanes of the wrong outputs, an element a fixed offset away from one the reference "
    "needs and no load reads? (its address moved by that offset along the kernel's own strides, re-run)"
)
#: At most this many moved loads are re-run (each offset seen on most wrong samples is one).
MAX_OFFSET_EDITS = 4


@dataclass(frozen=True)
class Offset:
    """A load line of one input whose storing lanes read `delta` (per dimension) from an element needed and unread."""

    index: int
    line: int
    delta: tuple[int, ...]
    seen: int  # on how many wrong samples
    twin: int | None  # the other load line that read the same element, where that is what it read


def offsets(samples: list[TracedSample], index: int, shape: tuple[int, ...]) -> list[Offset]:
    """The (line, offset) pairs seen on most judged wrong samples of input `index`, the most seen first."""
    judged = 0
    counts: Counter[tuple[int, tuple[int, ...]]] = Counter()
    twins: dict[tuple[int, tuple[int, ...]], int] = {}
    for s in samples:
        needed = s.needed.get(index)
        if not s.wrong or not s.judgeable or needed is None or not 0 < needed.numel() <= T.ACCESS_ALIGNED_MAX_NEEDED:
            continue
        read = {line: element for (i, line), element in s.aligned.items() if i == index}
        unread = set(needed.tolist()) - set(read.values())
        if len(unread) != 1 or not read:
            continue
        judged += 1
        want = flat_index(unread.pop(), shape)
        for line, element in read.items():
            twin = next((other for other, e in read.items() if other != line and e == element), None)
            if element in needed.tolist() and twin is None:
                continue  # a needed element no other load reads: this load is right
            got = flat_index(element, shape)
            key = (line, tuple(w - g for w, g in zip(want, got, strict=True)))
            counts[key] += 1
            if twin is not None:
                twins[key] = twin
    if judged < T.ACCESS_MIN_JUDGED:
        return []
    return [
        Offset(index, line, delta, seen, twins.get((line, delta)))
        for (line, delta), seen in counts.most_common()
        if seen >= T.ACCESS_WRONG_SHARE * judged
    ]


def _stride_parameters(source: str, tensor: str) -> dict[int, str]:
    """Dimension -> the kernel parameter a launch passes `tensor.stride(d)` for."""
    found: dict[int, str] = {}
    for param, passed in reach.launch_arguments(source).items():
        for _, code in passed:
            matched = re.fullmatch(rf"\s*{re.escape(tensor)}\.stride\(\s*(\d+)\s*\)\s*", code)
            if matched:
                found.setdefault(int(matched.group(1)), param)
    return found


def _pointer(source: str, line: int) -> ast.expr | None:
    """The pointer argument of the one `tl.load` on `line`."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return None
    loads = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "load"
        and n.lineno == line
        and n.args
    ]
    return loads[0].args[0] if len(loads) == 1 else None


def _moved(pointer: ast.expr, terms: dict[str, int]) -> str:
    """`pointer` with `k * param` added per (param, k): an existing `+ param` / `+ c * param` term changes its
    coefficient (`base + s_c` -> `base + 2 * s_c`)."""
    parts: list[tuple[int, ast.expr]] = []

    def split(node: ast.expr, sign: int) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            split(node.left, sign)
            split(node.right, sign if isinstance(node.op, ast.Add) else -sign)
        else:
            parts.append((sign, node))

    split(pointer, 1)
    left = dict(terms)
    written: list[tuple[int, str]] = []
    for sign, node in parts:
        name, coefficient = _scaled_name(node)
        if name is not None and name in left:
            k = sign * coefficient + left.pop(name)
            written += [_signed(k, name)] if k else []
        else:
            written.append((sign, ast.unparse(node)))
    written += [_signed(k, name) for name, k in left.items() if k]
    if not written:
        return "0"
    code = ("-" if written[0][0] < 0 else "") + written[0][1]
    return code + "".join(f" {'-' if sign < 0 else '+'} {text}" for sign, text in written[1:])


def _scaled_name(node: ast.expr) -> tuple[str | None, int]:
    """`name` -> (name, 1); `c * name` / `name * c` with an integer c -> (name, c); else (None, 0)."""
    if isinstance(node, ast.Name):
        return node.id, 1
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for number, name in ((node.left, node.right), (node.right, node.left)):
            if isinstance(number, ast.Constant) and isinstance(number.value, int) and isinstance(name, ast.Name):
                return name.id, number.value
    return None, 0


def _signed(k: int, name: str) -> tuple[int, str]:
    return (1 if k > 0 else -1), name if abs(k) == 1 else f"{abs(k)} * {name}"


def edit_for(source: str, offset: Offset) -> Edit | None:
    """The load at `offset.line` with its address moved by the offset along the kernel's stride parameters."""
    names = reach.forward_arguments(source)
    tensor = names[offset.index] if offset.index < len(names) else None
    pointer = _pointer(source, offset.line)
    if tensor is None or pointer is None:
        return None
    strides = _stride_parameters(source, tensor)
    moved = {d: k for d, k in enumerate(offset.delta) if k}
    if not moved or any(d not in strides for d in moved):
        return None
    before = ast.get_source_segment(source, pointer)
    lines = source.splitlines()
    if before is None or lines[offset.line - 1].count(before) != 1:
        return None
    after = _moved(pointer, {strides[d]: k for d, k in moved.items()})
    lines[offset.line - 1] = lines[offset.line - 1].replace(before, after)
    patched = "\n".join(lines) + ("\n" if source.endswith("\n") else "")
    return Edit(offset.line, ID, before, after, "fix_layout", patched)


def _finding(offset: Offset, edit: Edit) -> str:
    along = ", ".join(f"{k:+d} along dimension {d}" for d, k in enumerate(offset.delta) if k)
    what = (
        f"lines {offset.twin} and {offset.line} read the same element of input {offset.index}"
        if offset.twin is not None
        else f"line {offset.line} reads an element of input {offset.index} the reference does not use"
    )
    return (
        f"{what} for {offset.seen} sampled wrong outputs, while the element {along} of it, which the reference "
        "needs, is read "
        f"by no load; with {edit.describe()} the candidate passes on the failing seed"
    )


def _target(ctx: RunContext, diagnoses: list[Diagnosis]) -> OutputData | None:
    target = unexplained_output(ctx, diagnoses)
    settled = any(
        d.tested in ("confirmed", "proven") and d.evidence.get("edit_operator") for d in diagnoses
    )  # an edit already located the bug
    return None if target is None or settled or not ctx.traced or not ctx.source else target


@experiment(ID, QUESTION, tests=("layout_mismatch",), before="exact_inputs")
def lane_offset(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = _target(ctx, diagnoses)
    inputs = ctx.inputs_of(target.seed) if target is not None else None
    if target is None or not inputs or not ctx.traced or not ctx.source:
        return None
    candidates = [
        offset
        for index, tensor in enumerate(inputs)
        if isinstance(tensor, torch.Tensor)
        for offset in offsets(ctx.traced, index, tuple(tensor.shape))
    ][:MAX_OFFSET_EDITS]
    accept = repair.on_another_seed(runner, time.monotonic() + runner.remaining_s)
    tried = []
    for offset in candidates:
        edit = edit_for(ctx.source, offset)
        if edit is None:
            continue
        try:
            trial = runner.run(edit.describe(), candidate=edit.source, inputs_key=UNCHANGED_INPUTS)
        except TrialBudgetExceeded:
            break
        tried.append(edit.describe())
        if trial.clean and accept(edit):
            finding = _finding(offset, edit)
            leading = repair.leading_logic(diagnoses, target.name)
            diagnosis = repair.located(leading, edit, ctx, target, finding)
            diagnosis = diagnosis.model_copy(
                update={
                    "pattern": "layout_mismatch",
                    "summary": f"{diagnosis.summary.split(';')[0]} ({finding.split('; with')[0]})",
                    "evidence": {**diagnosis.evidence, "experiment": ID, "offset": list(offset.delta)},
                }
            )
            outcome = ExperimentOutcome(
                id=ID, question=QUESTION, finding=finding, confirms=["layout_mismatch"], edits_tried=len(tried)
            )
            return Result(outcome, [diagnosis], settled=True)
    if not tried:
        return None
    finding = f"loads read elements off from the needed ones, but no moved address passes ({'; '.join(tried)})"
    return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding, edits_tried=len(tried)))
