"""The repair_search experiment: which one-line edit of the candidate makes it pass (an intervention).

Once a logic error is shown (exact arithmetic does not remove it, or an experiment or proof named a
logic cause), the edits of tools/repair are re-run on the failing seed, the lines the diagnoses
located first, within EXPLAIN_SEARCH_BUDGET_S. An edit that makes the candidate pass pins the bug to
its line: the leading logic diagnosis gets that location and the edit as its evidence, and no later
experiment runs. suggest_fix verifies the edit on every seed (and goes on searching where this
stopped when none passed).
"""

from __future__ import annotations

import time

import torch

from tools import shapes
from tools import thresholds as T
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.experiments import Result
from tools.diagnosis.registry import experiment
from tools.diagnosis.trials import UNCHANGED_INPUTS, ResizedTrialRunner, TrialBudgetExceeded, TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome, Location
from tools.repair import reach, search
from tools.repair.edits import Edit, line_of
from tools.repair.source import SourceFacts
from tools.services import services

ID = "repair_search"
QUESTION = (
    "which single-site edit of the candidate (an index or stride swapped, // for %, a bound +-1, padding kept out "
    "of a reduction, ...) makes it pass on the failing seed? (located lines first)"
)
LOGIC_PATTERNS = ("formula_error", "layout_mismatch", "boundary_mask_error", "unwritten_output", "all_zero_output")


#: The pattern an edit's fix stands for, where no logic diagnosis names one.
EDIT_PATTERN = {
    "fix_layout": "layout_mismatch",
    "boundary_mask": "boundary_mask_error",
    "fix_formula": "formula_error",
    "output_dtype": "dtype_mismatch",  # an output allocated like the wrong tensor
}


#: Causes no single-site edit repairs (a precision loss spread over an accumulation, nondeterminism, a run the
#: candidate got rejected for): once one is established, the search does not run. An overflow, a NaN rule or an
#: output dtype can be one edit (a widened dtype, tl.where for a product with a mask).
UNEDITABLE = (
    "low_precision_accumulation",
    "large_k_accumulation_drift",
    "reduced_precision_dot",
    "rounding_mode_bias",
    "cancellation_error",
    "small_value_outliers",
    "nondeterminism",
    "input_mutation",
    "threshold_too_strict",
)


#: What the search's finding says when its budget, not its plan, ended it (suggest_fix can go on).
BUDGET_ENDED = "the budget ended the search"


def numeric_cause_shown(diagnoses: list[Diagnosis], output: str | None = None) -> bool:
    """A cause no single-site edit repairs is established (for this output; None: any)."""
    return any(
        d.pattern in UNEDITABLE
        and d.tested in ("confirmed", "proven")
        and (output is None or d.output in (output, None))
        for d in diagnoses
    )


#: Numeric causes a widening edit answers (their own repair), kept as the diagnosis when one passes.
WIDENED_CAUSES = ("inf_overflow", "low_precision_accumulation", "large_k_accumulation_drift", "reduced_precision_dot")


def _numeric_cause(diagnoses: list[Diagnosis], target: OutputData, edit: Edit) -> Diagnosis | None:
    """The overflow / precision hypothesis of this output a widening edit answers (established ones first); an
    integer type widened answers only an overflow (integers lose no precision, they wrap)."""
    causes = ("inf_overflow",) if _integer_widening(edit) else WIDENED_CAUSES
    mine = [d for d in diagnoses if d.pattern in causes and d.tested != "refuted" and d.output in (target.name, None)]
    return min(mine, key=lambda d: (d.tested == "untested", -d.confidence), default=None)


def _integer_widening(edit: Edit) -> bool:
    """The edit widens an integer type (int32 -> int64): what it answers is a wrap past the narrow type's range."""
    return edit.operator == "int_upcast" or (edit.operator == "dtype" and "int" in edit.before)


#: Edits that keep an operation in its domain (a clamp or eps by an unused parameter, a finite start for an
#: infinite one): where they repair an output holding NaN / Inf the golden does not, that is the NaN's handling.
GUARD_OPERATORS = frozenset({"unused_param", "fill_value", "infinite_sentinel"})


def _made_nonfinite(target: OutputData) -> bool:
    if target.measured.shape != target.golden.shape:
        return False
    return bool((~torch.isfinite(target.a) & torch.isfinite(target.g)).any())


def _widened_kind(target: OutputData, edit: Edit) -> str:
    """What a widening edit that passes shows where no overflow / precision diagnosis named it: an overflow
    where the output holds Inf / NaN the golden does not or an integer type wrapped, else precision lost in a
    narrow dtype."""
    return "inf_overflow" if _integer_widening(edit) or _made_nonfinite(target) else "low_precision_accumulation"


def _dtype_located(diagnoses: list[Diagnosis], output: str) -> bool:
    """The output's dtype is proven wrong and its allocation located: its values are not judged, nothing to search."""
    return any(
        d.pattern == "dtype_mismatch" and d.output in (output, None) and d.location is not None for d in diagnoses
    )


def _answered(diagnoses: list[Diagnosis], output: str, edit: Edit) -> Diagnosis | None:
    """An established diagnosis of this output whose own fix the edit is (a NaN rule: nan_propagation), or the
    NaN / Inf the trace saw first made at the edit's line (a division by zero, repaired there by an eps)."""
    lines = (edit.line, *edit.also)
    return next(
        (
            d
            for d in diagnoses
            if d.output in (output, None)
            and (
                (d.tested in ("proven", "confirmed") and edit.fix in d.suggested_fixes)
                or (d.tested != "refuted" and d.evidence.get("nonfinite_line") in lines)
            )
        ),
        None,
    )


def leading_logic(diagnoses: list[Diagnosis], output: str) -> Diagnosis | None:
    """The logic diagnosis of this output an edit would locate: a confirmed or proven one first (a specific
    cause before the generic formula_error, one that already says where before one that does not), else the
    most confident untested one."""
    mine = [
        d for d in diagnoses if d.output in (output, None) and d.tested != "refuted" and d.pattern in LOGIC_PATTERNS
    ]
    rank = {"proven": 0, "confirmed": 0, "untested": 1}
    return min(
        mine,
        key=lambda d: (rank[d.tested], d.pattern == "formula_error", d.location is None, -d.confidence),
        default=None,
    )


def failing_output(ctx: RunContext) -> OutputData | None:
    return next(
        (
            o
            for o in ctx.outputs
            if o.seed == ctx.primary_seed and o.failed and o.actual is not None and o.actual.shape == o.golden.shape
        ),
        None,
    )


def misshapen_output(ctx: RunContext) -> OutputData | None:
    """The failing seed's output of the wrong shape, where the candidate returned one: the edit that passes sizes
    it (its shape comes from host lines, tools/repair/allocation.shape_lines)."""
    return next(
        (
            o
            for o in ctx.outputs
            if o.seed == ctx.primary_seed and o.actual is not None and o.actual.shape != o.golden.shape
        ),
        None,
    )


def rounding_shown(ctx: RunContext) -> bool:
    """exact_inputs found that exact arithmetic removes the failure: rounding or range, no logic to edit."""
    exact = ctx.outcomes.get("exact_inputs")
    return exact is not None and exact.rounding_shown


def batch_runner(runner: TrialRunner, deadline: float) -> search.RunBatch:
    """Re-runs a batch of edits on the failing seed, side by side; None once `deadline` or the budget is past."""

    def run_batch(batch: list[Edit]) -> list[bool] | None:
        if time.monotonic() >= deadline:
            return None
        runs = [{"label": e.describe(), "candidate": e.source, "inputs_key": UNCHANGED_INPUTS} for e in batch]
        try:
            trials = runner.run_all(runs, stop=lambda trial: trial.clean)
        except TrialBudgetExceeded:
            return None
        return [t.clean for t in trials] + [False] * (len(batch) - len(trials))

    return run_batch


def search_edits(runner: TrialRunner, deadline: float, source: str, lines: list[int], **options) -> search.Searched:
    """search.search over the candidate's edits (options: its keyword arguments), screened at smaller sizes of
    the task where the candidate fails there too (a trial there costs a fraction of one at the task's sizes).
    When no edit passes the screen and time is left, the edits run at the task's sizes after all: a kernel
    written for the task's sizes alone fails the smaller ones whatever is edited."""
    size = batch_size(runner)
    smaller = _smaller(runner)
    if smaller is not None:
        screened = search.search(source, lines, _screened(runner, smaller, deadline), size, **options)
        if screened.stopped != "exhausted" or time.monotonic() >= deadline:
            return screened
    return search.search(source, lines, batch_runner(runner, deadline), size, **options)


def _smaller(runner: TrialRunner) -> ResizedTrialRunner | None:
    """A run of the task at a quarter of its sizes on which the candidate fails too; None where the reference
    has no size to shrink, the candidate's module assigns one of them (a copy of the task's sizes that the
    rewrite of the reference does not change), the reference cannot run there, or the candidate passes there
    (its bug needs the task's sizes)."""
    task = runner.ctx.task
    constants = shapes.size_constants(task.reference)
    sizes = shapes.screen_sizes(constants, set(task.fixed_sizes))
    if not sizes or set(sizes) & set(shapes.size_constants(runner.ctx.source or "")):
        return None  # nothing to shrink, or the candidate sets those sizes itself: it cannot follow the rewrite
    timeout = max(T.SCREEN_TRIAL_MIN_TIMEOUT_S, runner.ctx.result.timings.candidate_s)
    smaller = ResizedTrialRunner(runner, shapes.rewrite(task.reference, constants, sizes), timeout)
    try:
        trial = smaller.run(f"the candidate at {shapes.describe(sizes)}", inputs_key=UNCHANGED_INPUTS)
    except TrialBudgetExceeded:
        return None
    return smaller if trial.ok and not trial.clean else None


def _screened(runner: TrialRunner, smaller: ResizedTrialRunner, deadline: float) -> search.RunBatch:
    """Each batch of edits re-run at the smaller sizes first; only those that pass there run at the task's
    sizes, whose verdict is the edit's (a pass at smaller sizes alone is no repair)."""
    at_task_sizes = batch_runner(runner, deadline)

    def run_batch(batch: list[Edit]) -> list[bool] | None:
        if time.monotonic() >= deadline:
            return None
        runs = [{"label": e.describe(), "candidate": e.source, "inputs_key": UNCHANGED_INPUTS} for e in batch]
        try:
            trials = smaller.run_all(runs)
        except TrialBudgetExceeded:
            return None
        screened = [t.clean for t in trials] + [False] * (len(batch) - len(trials))
        survivors = [e for e, ok in zip(batch, screened, strict=True) if ok]
        if not survivors:
            return screened
        confirmed = at_task_sizes(survivors)
        if confirmed is None:
            return None
        verdicts = iter(confirmed)
        return [next(verdicts) if ok else False for ok in screened]

    return run_batch


def on_another_seed(runner: TrialRunner, deadline: float):
    """An edit that passes on the failing seed, re-run on another seed of the run before it is claimed as the bug's
    line: one that passes by coincidence (lost and double-counted terms that balance on those inputs) fails there.
    Accepted unconfirmed where the run kept no other seed's inputs or no time is left (suggest_fix verifies every
    seed before it calls a fix verified)."""
    ctx = runner.ctx
    others = [s.seed for s in ctx.result.seeds if s.seed != runner.seed and ctx.inputs_of(s.seed) is not None]
    if not others:
        return lambda _edit: True
    other = TrialRunner(ctx, deadline - time.monotonic(), runner.cancel, runner.report, seed=others[0])

    def accept(edit: Edit) -> bool:
        try:
            trial = other.run(
                f"{edit.describe()} on seed {other.seed}", candidate=edit.source, inputs_key=UNCHANGED_INPUTS
            )
        except TrialBudgetExceeded:
            return True
        return trial.clean or not trial.ok

    return accept


def batch_size(runner: TrialRunner) -> int:
    return max(1, services().pool(runner.backend).slots) * T.REPAIR_BATCH_PER_SLOT


def located(leading: Diagnosis | None, edit: Edit, ctx: RunContext, target: OutputData, finding: str) -> Diagnosis:
    """The leading logic diagnosis with the edit's line as its location (a proof stays a proof), or a new one
    of the edit's kind (by the role of the code it changes) where none names a specific cause."""
    lines = f"lines {', '.join(map(str, (edit.line, *edit.also)))} (written the same way)" if edit.also else ""
    change = f"changing `{edit.before}` to `{edit.after}` makes the candidate pass"
    if _integer_widening(edit):
        change += " (an integer intermediate wraps past the narrow type's range)"
    where = f"the bug is on {lines or f'line {edit.line}'}: {change}"
    traced = leading.location.line if leading is not None and leading.location is not None else None
    if traced is not None and edit.line in reach.twin_accesses(ctx.source or "").get(traced, []):
        where += f" (line {traced} accesses the same address, and the trace below names it)"
    evidence = {
        "experiment": ID,
        "line": edit.line,
        **({"also_lines": list(edit.also)} if edit.also else {}),
        "edit_before": edit.before,
        "edit_after": edit.after,
        # the edited line as it reads after the edit: which of two alike texts on the line it changed
        "edit_line_after": line_of(edit.source, edit.line),
        "edit_operator": edit.operator,
    }
    widening = edit.operator in search.WIDENING_OPERATORS
    kind = _widened_kind(target, edit) if widening else EDIT_PATTERN.get(edit.fix, "formula_error")
    if kind == "formula_error" and edit.operator in GUARD_OPERATORS and _made_nonfinite(target):
        kind = "nan_mismatch"  # the edit guards the operation that made NaN / Inf of finite values
    if (
        leading is not None
        and leading.pattern in ("formula_error", "layout_mismatch", "boundary_mask_error")
        and kind != leading.pattern
        and (
            leading.pattern == "formula_error"
            or leading.tested == "untested"
            or unmasked_by(edit, leading)
            or (edit.fix == "boundary_mask" and "stores_again" in leading.evidence)
        )
    ):  # a symptom (never written, all zero) stays: the edit says why it shows; stores that collide because lanes
        # a mask or bound leaves in compute their addresses (padding lanes in a rank) are that boundary error
        leading = None  # a hypothesis or the generic 'logic somewhere' gives way to what the edit's role says
    if leading is None and widening:
        evidence["kind_from_output"] = True  # a guess from the output: reconcile() gives way to a confirmed cause
    guarded = _guarded(leading, edit) if leading is not None else ""
    if leading is not None and guarded:
        leading = leading.model_copy(update={"pattern": "nan_mismatch", "summary": guarded})
    base = leading or Diagnosis(
        pattern=kind,  # type: ignore[arg-type] - a pattern id
        confidence=T.FOUND_BY_EXPERIMENT_CONFIDENCE,
        seed=target.seed,
        output=target.name,
        summary="",
    )
    return Diagnosis.model_validate(
        base.model_dump()
        | {
            "confidence": max(base.confidence, T.FOUND_BY_EXPERIMENT_CONFIDENCE),
            "summary": f"{where}; {base.summary}" if base.summary else where,
            "evidence": {**base.evidence, **evidence},
            "location": _edit_location(ctx, edit, leading).model_dump(),
            "suggested_fixes": [edit.fix, *(f for f in base.suggested_fixes if f != edit.fix)],
            "tested": "proven" if base.tested == "proven" else "confirmed",
            "experiment": finding,
        }
    )


#: Evidence of a boundary diagnosis that shows only that something was read or written out of range (reads past an
#: input's end or beyond what an output needs, elements never written): a wrong address shows it as well as a
#: missing mask. (A tail handled wrong, an error confined to the last block, is a boundary cause by itself.)
OUT_OF_RANGE_EVIDENCE = (
    "out_of_bounds_reads",
    "over_read_dimensions",
    "unwritten_elements",
    "nonfinite_with_nan_margins",
)


def out_of_range_only(diagnosis: Diagnosis) -> bool:
    """A boundary diagnosis whose evidence is only that something was read or written out of range."""
    evidence = diagnosis.evidence
    return diagnosis.pattern == "boundary_mask_error" and any(key in evidence for key in OUT_OF_RANGE_EVIDENCE)


def unmasked_by(edit: Edit, diagnosis: Diagnosis) -> bool:
    """A boundary diagnosis shown only by out-of-range accesses that an edit of no mask or bound repairs: the
    addresses or the formula were wrong, not the masks (the candidate then passes reading nothing out of bounds),
    so the boundary cause gives way to the edit's."""
    return (
        out_of_range_only(diagnosis) and edit.fix != "boundary_mask" and edit.operator not in search.WIDENING_OPERATORS
    )


def _edit_location(ctx: RunContext, edit: Edit, leading: Diagnosis | None) -> Location:
    """The edit's line, with the tensor its value reaches (tools/repair/reach.py). Where the leading diagnosis's
    trace named that tensor too, its account of the access (what was read against what was needed) is kept."""
    traced = leading.location if leading is not None and leading.location is not None else None
    location = reach.with_tensor(ctx.line_location(edit.line), ctx.source, edit.before, edit.source)
    same_line = traced is not None and traced.line == edit.line
    if (
        traced is not None
        and traced.tensor
        and (location.tensor == traced.tensor or (not location.tensor and same_line))
    ):
        return location.model_copy(update={"tensor": traced.tensor, "access": traced.access, "indices": traced.indices})
    return location


def _guarded(traced: Diagnosis, edit: Edit) -> str:
    """Where the trace saw an invalid operation (a division by zero) make the first NaN / Inf and the passing
    edit is at that line, the NaN / Inf is the operation's, guarded there: what to say of it ("" otherwise)."""
    invalid = traced.evidence.get("nonfinite_invalid")
    if not invalid or traced.evidence.get("nonfinite_line") not in (edit.line, *edit.also):
        return ""
    return f"{invalid} ({traced.evidence.get('nonfinite_operation')}) makes the first NaN / Inf, not an overflow"


def reconcile(diagnoses: list[Diagnosis]) -> None:
    """A widening edit found before any experiment named the numeric cause took its kind from the output (Inf or
    not); where a later experiment confirmed the cause (an overflow absorbed before the output, e.g.
    1 / sqrt(inf) = 0), that diagnosis gets the edit's line and fix, and the guess goes."""
    for guess in [d for d in diagnoses if d.evidence.get("kind_from_output")]:
        named = next(
            (
                d
                for d in diagnoses
                if d is not guess
                and d.output == guess.output
                and d.pattern in WIDENED_CAUSES
                and d.tested in ("confirmed", "proven")
            ),
            None,
        )
        if named is None:
            continue
        edit = {k: v for k, v in guess.evidence.items() if k in ("line", "edit_before", "edit_after", "edit_operator")}
        named.location, named.evidence = guess.location, {**named.evidence, **edit}
        named.suggested_fixes = list(dict.fromkeys([*guess.suggested_fixes, *named.suggested_fixes]))
        named.summary = f"{guess.summary.split(';')[0]}; {named.summary}"
        diagnoses.remove(guess)


def differential_lines(ctx: RunContext) -> list[int]:
    """Where the traced wrong elements are stored by other stores than some right ones (`E[v]` wrong beside a right
    `E[u]`, a kurtosis beside its right skewness, an output that fails beside one that passes: the access trace's
    controls), the kernel lines that feed the stores of wrong elements and no store that wrote only right ones
    (tools/repair/reach.feeding_lines): a line that also feeds a store of right elements alone computes them right,
    as far as those elements go. In source order; none where every store wrote a wrong element or no right element
    was traced."""
    samples = [s for s in [*ctx.traced, *ctx.traced_controls] if s.store_line]
    wrong = {int(s.store_line) for s in samples if s.wrong}
    rightly_only = {int(s.store_line) for s in samples if not s.wrong} - wrong
    if not wrong or not rightly_only or not ctx.source:
        return []
    feeding = set().union(*(reach.feeding_lines(ctx.source, line) for line in wrong))
    rightly = set().union(*(reach.feeding_lines(ctx.source, line) for line in rightly_only))
    return sorted(feeding - rightly)


def _leave_search_lines(diagnoses: list[Diagnosis], output: str, lines: list[int]) -> None:
    """The lines this search put first, left with the leading logic diagnosis where it says no line of its own:
    suggest_fix's search goes on from them (search.located_lines reads them back)."""
    leading = leading_logic(diagnoses, output)
    if leading is not None and leading.location is None and lines:
        known = leading.evidence.get("search_lines")
        before = known if isinstance(known, list) else []
        leading.evidence = {**leading.evidence, "search_lines": [*before, *(n for n in lines if n not in before)]}


def _passes(found: search.Searched) -> str:
    """The finding of a search that found an edit that passes."""
    assert found.found is not None
    return f"with {found.found.describe()} the candidate passes on the failing seed ({found.tried} edits re-run)"


@experiment(ID, QUESTION, tests=LOGIC_PATTERNS, before="input_layout")
def repair_search(
    ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]
) -> Result | None:
    target = failing_output(ctx) or misshapen_output(ctx)  # a proven cause still leaves its line open
    if target is None or not ctx.source or _dtype_located(diagnoses, target.name):
        return None
    # A numeric cause (or rounding) shown by changing the inputs' distribution leaves open the padding edits (whether
    # padding lanes count depends on the data) and the widening ones (the repair of a precision or range cause)
    numeric = numeric_cause_shown(diagnoses, target.name) or rounding_shown(ctx)
    only = search.NUMERIC_SCOPE if numeric else None
    budget = T.EXPLAIN_SEARCH_BUDGET_S["interpreter" if runner.backend.interpreter else "compiled"]
    deadline = time.monotonic() + min(budget, runner.remaining_s)
    lines = search.located_lines(diagnoses)
    lines += [line for line in differential_lines(ctx) if line not in lines]
    found = search_edits(
        runner,
        deadline,
        ctx.source,
        lines,
        scaled_output=search.scaled(diagnoses),
        only=only,
        accept=on_another_seed(runner, deadline),
    )
    if found.found is None and only is not None and found.candidates == 0:
        return None  # nothing of the numeric scope to edit (no padding, no narrow dtype): the numeric cause stands
    if found.found is None:
        _leave_search_lines(diagnoses, target.name, lines)
        finding = (
            f"no single-site edit passes ({found.tried} of {found.candidates} re-run"
            f"{', the located lines first' if lines else ''}; "
            f"{BUDGET_ENDED if found.stopped == 'budget' else 'none left'})"
        )
        return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding, edits_tried=found.tried))
    edit = found.found
    widened = _numeric_cause(diagnoses, target, edit) if edit.operator in search.WIDENING_OPERATORS else None
    standing = [d for d in diagnoses if not unmasked_by(edit, d)]  # a boundary cause the edit disproves: not it
    misshapen = next((d for d in standing if d.pattern == "shape_mismatch" and d.output == target.name), None)
    leading = widened or misshapen or _answered(standing, target.name, edit) or leading_logic(standing, target.name)
    finding = _passes(found)
    diagnosis = located(leading, edit, ctx, target, finding)
    if diagnosis.pattern != "boundary_mask_error":
        for d in diagnoses:  # what the boundary evidence showed stays in its summary; as the cause it is refuted
            if d.output in (target.name, None) and d.tested != "refuted" and unmasked_by(edit, d):
                d.tested, d.experiment = "refuted", f"{finding}: the edit changes no mask or bound"
                d.confidence = round(d.confidence * T.REFUTED_FACTOR, 3)
    outcome = ExperimentOutcome(
        id=ID,
        question=QUESTION,
        finding=finding,
        confirms=[diagnosis.pattern],
        # the one-line logic edit is the cause: the untested numeric hypotheses are not
        refutes=sorted(
            {
                d.pattern
                for d in diagnoses
                if d.pattern not in LOGIC_PATTERNS and d.tested == "untested" and d.pattern != diagnosis.pattern
            }
        ),  # type: ignore[arg-type] - pattern ids
        edits_tried=found.tried,
    )
    # a widening edit locates a numeric cause: the experiments after it still add their evidence (the reduction
    # length sweep, the input scales); a logic edit settles the diagnosis
    return Result(outcome, [diagnosis], settled=edit.operator not in search.WIDENING_OPERATORS)


LAYOUT_ID = "layout_search"
_LAYOUT_QUESTION = (
    "which single-site edit at the loads of the input the candidate reads in another layout makes it pass? (the "
    "repair search once more, those loads and the lines their addresses come from first)"
)


@experiment(LAYOUT_ID, _LAYOUT_QUESTION, tests=("layout_mismatch",), before="padding_value")
def layout_search(
    ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]
) -> Result | None:
    """input_layout names the tensor read wrongly after the located lines' search ran out of budget: the edits at
    that tensor's loads are the likeliest left, and get a search of their own."""
    searched = ctx.outcomes.get(ID)
    layout = next(
        (d for d in diagnoses if d.evidence.get("experiment") == "input_layout" and d.evidence.get("load_lines")),
        None,
    )
    target = failing_output(ctx)
    if searched is None or BUDGET_ENDED not in searched.finding or layout is None or target is None:
        return None
    loads = [int(n) for n in layout.evidence["load_lines"]]  # type: ignore[union-attr] - a list of lines
    budget = T.LAYOUT_SEARCH_BUDGET_S["interpreter" if runner.backend.interpreter else "compiled"]
    deadline = time.monotonic() + min(budget, runner.remaining_s)
    found = search_edits(runner, deadline, ctx.source, loads, accept=on_another_seed(runner, deadline))
    if found.found is None:
        finding = f"no single-site edit at those loads passes ({found.tried} of {found.candidates} re-run)"
        return Result(ExperimentOutcome(id=LAYOUT_ID, question=_LAYOUT_QUESTION, finding=finding))
    edit = found.found
    finding = _passes(found)
    diagnosis = located(layout, edit, ctx, target, finding)
    outcome = ExperimentOutcome(
        id=LAYOUT_ID, question=_LAYOUT_QUESTION, finding=finding, confirms=[diagnosis.pattern], edits_tried=found.tried
    )
    return Result(outcome, [diagnosis], settled=True)
