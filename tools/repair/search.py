"""The search: edits of the candidate re-run in batches, the located lines first, until one passes.

A logic error (a stride for the wrong dimension, `//` for `%`, a bound one short, a row index used
for a column, padding lanes in a reduction) has no construct a fixed patcher could find: what fixes
it is a small edit somewhere. The search orders the edits of tools/repair/edits.py (those at the
lines a diagnosis located, and at the lines their values come from, first), hands them to the
caller's `run_batch` (re-runs on the failing seed, side by side) and offers each that passes to
`accept` (the caller's verification on every seed) until one is accepted, the caller's budget ends
or the edits run out. The plan is deterministic: a later search can skip what an earlier one tried.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from tools import thresholds as T
from tools.models.diagnosis import Diagnosis
from tools.repair import prior, reach
from tools.repair.edits import Edit, edits, value_lines


def rank_of(counts: dict[str, tuple[int, float]]) -> dict[str, float]:
    """Per operator its sort key in the plan (lower first): minus its likelihood of undoing the bug per edit re-run,
    (undone + REPAIR_PRIOR_UNDONE) / (edits + REPAIR_PRIOR_EDITS) over the held-out corpora (tools/repair/prior.py,
    measured by benchmarks/repair_prior.py). An operator with few sites is cheap to try, so one that has undone
    nothing yet still goes before one that undid a few bugs in thousands of edits."""
    return {
        op: -(undone + T.REPAIR_PRIOR_UNDONE) / (proposed + T.REPAIR_PRIOR_EDITS)
        for op, (proposed, undone) in counts.items()
    }


#: The plan's order of operators (lower first); an operator the counts do not have yet ranks as one never seen.
RANK = rank_of(prior.COUNTS)
UNSEEN_RANK = rank_of({"": (0, 0.0)})[""]


#: Edits whose site is evidence of a defect by itself (a loaded value nothing reads): the first EVIDENT_FIRST of
#: them (top to bottom, each value's nearest uses first) go before every other edit.
EVIDENT_OPERATORS = frozenset({"unused_value"})
EVIDENT_FIRST = 8

#: Re-runs a batch of edits: per edit True (passes), False (fails or errs), or None for the whole batch
#: when the budget is spent or the call was cancelled (what ran is lost: the search ends).
RunBatch = Callable[[list[Edit]], "list[bool] | None"]


@dataclass(frozen=True)
class Searched:
    """What a search did: the accepted edit (None: none), how many edits it re-ran, of how many, why it ended."""

    found: Edit | None
    tried: int
    candidates: int
    stopped: str  # "found", "exhausted", "budget"


#: Where the output is the golden times one constant factor, the edits that can change a factor: another name
#: or operand order in a product or a quotient (`total / BLOCK` for `total / N`).
SCALE_OPERATORS = ("name_swap", "operands", "off_by_one", "size_off_by_one")
#: Edits offered only where the output is the golden times one constant: the stored value times or over a parameter.
SCALED_ONLY = frozenset({"scale_param"})


#: Edits of what fills the masked-off lanes: whether those lanes count depends on the inputs' distribution
#: (a 0 padding is harmless in a min over data with negatives), so experiments that change the distribution
#: (exact -1/0/+1 inputs, centred or shifted inputs) cannot rule them out.
PADDING_OPERATORS = frozenset({"pad_reduction", "pad_accumulate", "padding"})
#: Edits that compute in a wider dtype: the repairs of a precision or range cause itself (an fp16 square that
#: overflows, an fp16 accumulator), tried once such a cause is established.
WIDENING_OPERATORS = frozenset({"dtype", "upcast", "int_upcast"})
#: What the search re-runs once a numeric cause is established: with the padding edits, the rescaling of a carried
#: sum (inputs whose running max is reached in the first block, as exact -1/0/+1 inputs are, hide a missing
#: `* tl.exp(m - m_new)`, so an experiment that changes the distribution cannot rule it out).
NUMERIC_SCOPE = PADDING_OPERATORS | WIDENING_OPERATORS | {"carried_factor"}


def plan(source: str, lines: list[int], scaled: bool = False, only: frozenset[str] | None = None) -> list[Edit]:
    """Every edit: first those at the located lines and at the lines their values come from (nearest first), and
    at the loads (stores) at a located one's address (reach.twin_accesses), then the rest; within each, likelier
    slips first (RANK), then top to bottom. `scaled`: the
    output is the golden scaled by a constant, so the edits of factors in products and quotients go first.
    `only`: the edits of these operators alone."""
    order = dict(RANK)
    rank: dict[int, int] = {}
    twins = reach.twin_accesses(source)
    for line in lines:
        for at in value_lines(source, line) + twins.get(line, []):
            rank.setdefault(at, len(rank))
    candidates = [
        e for e in edits(source) if (only is None or e.operator in only) and (scaled or e.operator not in SCALED_ONLY)
    ]
    if scaled:
        text = source.splitlines()
        factors = [e for e in candidates if e.operator in SCALE_OPERATORS and _in_product(text[e.line - 1], e.before)]
        scalings = [e for e in candidates if e.operator in SCALED_ONLY]  # then the stored value scaled, in their order
        candidates = factors + scalings + [e for e in candidates if e not in factors and e not in scalings]
        order |= {op: -1.0 for op in SCALE_OPERATORS}  # before every measured rank (each is above -1)
    return arrange(candidates, rank, order, keep_rest=scaled)


class Planned(Protocol):
    """What the plan's order reads of an edit."""

    @property
    def operator(self) -> str: ...

    @property
    def line(self) -> int: ...


P = TypeVar("P", bound=Planned)


def arrange(candidates: list[P], rank: dict[int, int], order: dict[str, float], keep_rest: bool = False) -> list[P]:
    """The plan's order: the first EVIDENT_FIRST evident edits, then those at the ranked lines (`rank`: line ->
    place; each line's first REPAIR_EDITS_PER_LINE_FIRST first), then the rest by `order` (operator -> key, lower
    first; UNSEEN_RANK for one it lacks) and line, or as given with `keep_rest`. benchmarks/repair_prior.py
    measures this very order."""
    # a value the kernel loads and never reads is a defect whatever the diagnosis located: its nearest uses first
    evident = [e for e in candidates if e.operator in EVIDENT_OPERATORS][:EVIDENT_FIRST]
    candidates = [e for e in candidates if e not in evident]
    located = sorted(
        (e for e in candidates if e.line in rank), key=lambda e: (rank[e.line], order.get(e.operator, UNSEEN_RANK))
    )
    located = _each_line_first(located, T.REPAIR_EDITS_PER_LINE_FIRST)
    rest = [e for e in candidates if e.line not in rank]
    if not keep_rest:
        rest.sort(key=lambda e: (order.get(e.operator, UNSEEN_RANK), e.line))
    return evident + located + rest


def _each_line_first(planned: list[P], share: int) -> list[P]:
    """Each line's first `share` edits (in the plan's order), then the rest."""
    first, later, seen = [], [], {}
    for e in planned:
        seen[e.line] = seen.get(e.line, 0) + 1
        (first if seen[e.line] <= share else later).append(e)
    return first + later


def _in_product(code: str, name: str) -> bool:
    """`name` is a factor or divisor on this line (`x / name`, `name * y`)."""
    return any(f"{op} {name}" in code or f"{name} {op}" in code for op in ("*", "/"))


def search(
    source: str,
    lines: list[int],
    run_batch: RunBatch,
    batch_size: int,
    accept: Callable[[Edit], bool] = lambda _edit: True,
    skip: int = 0,
    report: Callable[[str], None] = lambda _message: None,
    scaled_output: bool = False,
    only: frozenset[str] | None = None,
) -> Searched:
    """The planned edits from the `skip`-th on, `batch_size` at a time, until one passes and is accepted."""
    candidates = plan(source, lines, scaled_output, only)
    tried = skip
    for first in range(skip, len(candidates), max(1, batch_size)):
        batch = candidates[first : first + batch_size]
        report(f"repair search: edits {first + 1}-{first + len(batch)} of {len(candidates)}")
        passed = run_batch(batch)
        if passed is None:
            return Searched(None, tried, len(candidates), "budget")
        tried += len(batch)
        for edit, ok in zip(batch, passed, strict=False):
            if ok and accept(edit):
                origin, ran = _at_the_origin(source, edit, candidates, run_batch, accept)
                return Searched(origin or edit, tried + ran, len(candidates), "found")
    return Searched(None, tried, len(candidates), "exhausted")


#: Edits that keep padding lanes out where they are reduced or accumulated: the padding itself comes from the
#: masked loads' `other=`, a change of which is the repair at the value's origin.
KEPT_OUT = frozenset({"pad_reduction", "pad_accumulate"})


def _at_the_origin(
    source: str, found: Edit, candidates: list[Edit], run_batch: RunBatch, accept: Callable[[Edit], bool]
) -> tuple[Edit | None, int]:
    """An edit where the wrong value is made that passes too, preferred to the passing edit where it is used:
    - where the passing edit gives a kernel parameter's use another parameter (`stride_x` -> `n_cols`), the value
      passed for it may be what is wrong (`x.stride(1)` for `x.stride(0)` at the launch): that argument's edits;
    - where it keeps padding lanes out of a reduction (`tl.sum(tl.where(mask, x, 0))`), the padding the masked
      loads its values come from give them (`other=0.0` for `other=float("-inf")` under a max): their paddings;
    - where it changes a name's value where it is used (`inv` -> `tl.sqrt(inv)`): the same change of the value
      the name is assigned (`inv = 1.0 / s` -> `inv = tl.sqrt(1.0 / s)`).
    (that edit or None, edits re-run)"""
    if found.operator == "name_swap":
        arguments = reach.launch_arguments(source).get(found.before, [])
        origin = [
            e for e in candidates if e is not found and any(e.line == at and e.before == code for at, code in arguments)
        ]
    elif found.operator in KEPT_OUT:
        feeding = set(value_lines(source, found.line)) - {found.line}
        origin = [e for e in candidates if e.operator == "padding" and e.line in feeding]
    elif found.before.isidentifier() and (name := re.compile(rf"\b{found.before}\b")).search(found.after):
        # a name's value changed where it is used (`tl.sqrt(inv)`): the same change where the value is made (the
        # name replaced as a word: `s` in `tl.sqrt(s)`, not the s of sqrt)
        feeding = set(value_lines(source, found.line)) - {found.line}
        origin = [e for e in candidates if e.line in feeding and e.after == e.before.join(name.split(found.after))]
    else:
        origin = []
    if not origin:
        return None, 0
    passed = run_batch(origin) or []
    return next((e for e, ok in zip(origin, passed, strict=False) if ok and accept(e)), None), len(origin)


def scaled(diagnoses: list[Diagnosis]) -> bool:
    """A credible diagnosis found the output to be the golden times one constant."""
    return any(d.tested != "refuted" and isinstance(d.evidence.get("scale"), float) for d in diagnoses)


def located_lines(diagnoses: list[Diagnosis]) -> list[int]:
    """The candidate lines the credible diagnoses point at, the established locations first."""
    lines: list[int] = []

    # what an experiment or a proof located (a line, or the lines where what it showed is made: the host lines
    # passing a view's strides) comes before the hypotheses' lines (a grid or size a detector suspects); otherwise in
    # the order the diagnoses were made (a controlled trial that showed which input's strides are wrong runs before
    # the trace that names the load reading it)
    def standing(d: Diagnosis) -> int:
        return 0 if d.tested in ("proven", "confirmed") else 1

    for d in sorted(diagnoses, key=standing):
        if d.tested == "refuted":
            continue
        line = d.location.line if d.location is not None else None
        # where what the diagnosis shows is made (a size, the grid, the strides a view is read with, stores), in the
        # order the diagnosis gives: before its own line, which may be where the wrong value is used (the load of a
        # view read with the wrong strides), not where it is made
        more = d.evidence.get("search_lines")
        for candidate in (*(more if isinstance(more, list) else []), line, d.evidence.get("line")):
            if isinstance(candidate, int) and candidate > 0 and candidate not in lines:
                lines.append(candidate)
    return lines
