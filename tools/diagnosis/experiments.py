"""Experiments: hypotheses tested by re-running reference and candidate on inputs changed under control.

Each experiment asks one question whose answer separates causes that look alike in a single run
(a NaN from an invalid operation or from reading past an input; an error from overflow, from an
additive constant in the wrong place or from rounding). It runs only when its answer can change
the diagnosis, and reports the trials it ran and what they showed. Registered in
tools.diagnosis.registry.EXPERIMENTS.

Interpretations rest on exact properties, not tuned thresholds: multiplying every input by a
power of two changes no rounding in a homogeneous computation (only range and additive
constants see it); a finite margin instead of a NaN one changes only what out-of-bounds loads read;
centring the inputs removes the large equal terms a cancelling formula subtracts.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import torch

from tools import thresholds as T
from tools.diagnosis import copies
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors import element_indices, flat_index, tail_views
from tools.diagnosis.registry import EXPERIMENTS, experiment
from tools.diagnosis.trials import UNCHANGED_INPUTS, InputsChange, InputTransform, Trial, TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome, FixId, Location, PatternId, TrialSummary
from tools.repair import padding, reach
from tools.repair.registry import FIXES
from tools.repair.source import SourceFacts

#: Trial error within this factor of the run's own error counts as "the same error": rounding
#: errors of different inputs scatter by about 2x; a change of cause moves them by orders.
SAME_ERROR_FACTOR = 4.0


@dataclass
class Result:
    """What an experiment returns: its outcome, diagnoses that only it could find, and whether it settles
    the question (a change to the candidate's source made it pass: no later experiment runs)."""

    outcome: ExperimentOutcome
    found: list[Diagnosis] = field(default_factory=list)
    settled: bool = False


def _question(id: str) -> str:
    return EXPERIMENTS[id].question


def said(id: str, trials: list[TrialSummary], finding: str) -> Result:
    """An outcome that confirms nothing: inconclusive, or a hypothesis it looked for and did not find."""
    return Result(ExperimentOutcome(id=id, question=_question(id), trials=trials, finding=finding))


def confirmed_result(
    id: str,
    trials: list[TrialSummary],
    finding: str,
    target: OutputData,
    pattern: PatternId,
    summary: str,
    evidence: dict,
    fixes: list[FixId],
) -> Result:
    """An outcome that confirms `pattern`, with the diagnosis only this experiment could make."""
    outcome = ExperimentOutcome(id=id, question=_question(id), trials=trials, finding=finding, confirms=[pattern])
    found = Diagnosis(
        pattern=pattern,
        confidence=T.FOUND_BY_EXPERIMENT_CONFIDENCE,
        seed=target.seed,
        output=target.name,
        summary=summary,
        evidence={"experiment": id, **evidence},
        suggested_fixes=fixes,
        tested="confirmed",
        experiment=finding,
    )
    return Result(outcome, [found])


def _computed_nonfinite(o: OutputData) -> torch.Tensor | None:
    """NaN / Inf in the output where the golden is finite and the element was written."""
    if o.actual is None or not o.actual.is_floating_point() or o.actual.shape != o.golden.shape:
        return None
    mask = ~torch.isfinite(o.a) & torch.isfinite(o.g)
    poison = o.unwritten()
    return mask & ~poison if poison.numel() else mask


def _trial_nonfinite(trial: Trial, name: str) -> torch.Tensor | None:
    a, g = trial.actual.get(name), trial.golden.get(name)
    if a is None or g is None or a.shape != g.shape or not a.is_floating_point():
        return None
    return ~torch.isfinite(a) & torch.isfinite(g.to(torch.float64))


def the_run(target) -> TrialSummary:
    """The failing run itself, as the first row beside an experiment's trials."""
    r = target.neutral
    cpu_mere = r.cpu_control.mere if r.cpu_control else None
    return TrialSummary(label="the run", ran=True, passed=False, mere=r.mere, mare=r.mare, cpu_mere=cpu_mere)


def summary_of(trial: Trial, name: str) -> TrialSummary:
    if not trial.ok:
        return TrialSummary(label=trial.label, ran=False, note=trial.error)
    r = trial.neutral.get(name)
    bad = _trial_nonfinite(trial, name)
    return TrialSummary(
        label=trial.label,
        ran=True,
        passed=trial.passed,
        mere=r.mere if r else None,
        mare=r.mare if r else None,
        cpu_mere=r.cpu_control.mere if r and r.cpu_control else None,
        nonfinite=int(bad.sum()) if bad is not None else None,
    )


def relative_error(actual: torch.Tensor | None, golden: torch.Tensor | None) -> float | None:
    """sum |actual - golden| / sum |golden| over the finite elements: one number for the whole
    output, blind to which comparator domain (normal, small-value, cancellation) an element is in."""
    if actual is None or golden is None or actual.shape != golden.shape or not actual.is_floating_point():
        return None
    a, g = actual.to(torch.float64), golden.to(torch.float64)
    finite = torch.isfinite(a) & torch.isfinite(g)
    scale = float(g[finite].abs().sum())
    return float((a[finite] - g[finite]).abs().sum()) / scale if scale > 0 else None


def _mere(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.inf


def unexplained_output(ctx: RunContext, diagnoses: list[Diagnosis]) -> OutputData | None:
    """The first failing output of the primary seed, unless a proven diagnosis explains it
    (then no experiment can change the answer)."""
    proven = {d.output for d in diagnoses if d.tested == "proven"}
    if None in proven:
        return None
    return next(
        (
            o
            for o in ctx.outputs
            if o.seed == ctx.primary_seed
            and o.failed
            and o.actual is not None
            and o.actual.shape == o.golden.shape
            and o.name not in proven
        ),
        None,
    )


def _logic_shown(target: OutputData, diagnoses: list[Diagnosis]) -> bool:
    """An experiment (exact_inputs) confirmed a logic error in this output: what the experiments that
    name its cause (copy_sources, input_layout, padding_value) start from."""
    return any(
        d.pattern == "formula_error" and d.tested == "confirmed" and d.output in (target.name, None) for d in diagnoses
    )


def _rows(mask: torch.Tensor, o: OutputData) -> Location:
    m2 = o.as_2d(mask)
    rows = torch.nonzero(m2.any(dim=1)).flatten()
    return Location(
        description=f"{int(mask.sum())} output element(s) in {rows.numel()} row(s) of the 2-D view",
        indices=element_indices(mask, tuple(o.measured.shape)),
        rows=[int(rows.min()), int(rows.max())] if rows.numel() else None,
    )


# --- out-of-bounds reads -----------------------------------------------------------------------------------


@experiment(
    "margin_fill",
    "do the NaN/Inf outputs come from loads past the inputs' ends (NaN guard margins)?",
    tests=("boundary_mask_error", "nan_mismatch", "inf_overflow"),
)
def margin_fill(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    failing = next(
        (
            (o, m)
            for o in ctx.outputs
            if o.seed == ctx.primary_seed and o.failed and (m := _computed_nonfinite(o)) is not None and bool(m.any())
        ),
        None,
    )
    if failing is None or ctx.result.checks.input_guard != "nan":
        return None
    target, base = failing
    trial = runner.run("NaN guard margins around the inputs replaced by zeros", guard_fill="zero")
    summaries = [
        TrialSummary(
            label="the run (NaN margins)",
            ran=True,
            passed=False,
            mere=target.neutral.mere,
            mare=target.neutral.mare,
            nonfinite=int(base.sum()),
        ),
        summary_of(trial, target.name),
    ]
    after = _trial_nonfinite(trial, target.name) if trial.ok else None
    if after is None:
        return Result(
            ExperimentOutcome(
                id="margin_fill",
                question=_question("margin_fill"),
                trials=summaries,
                finding=f"inconclusive: {trial.error or 'the trial output is not comparable'}",
            )
        )
    gone = base & ~after
    share = int(gone.sum()) / int(base.sum())
    if share >= 0.9:
        loads = (
            f" (unmasked or partially masked tl.load at {', '.join(f'line {n}' for n in facts.tail_loads[:4])})"
            if facts.tail_loads
            else ""
        )
        finding = (
            f"{int(gone.sum())} of {int(base.sum())} NaN/Inf outputs vanish when the margins past the inputs hold "
            "zeros instead of NaN: those outputs read memory outside their inputs"
        )
        found = Diagnosis(
            pattern="boundary_mask_error",
            confidence=0.96,
            seed=target.seed,
            output=target.name,
            summary=f"loads read past the ends of the inputs{loads}: {finding.split(': ')[0]}; mask the loads of the "
            "last partial block (mask=offs < n, other=0)",
            evidence={
                "nonfinite_with_nan_margins": int(base.sum()),
                "nonfinite_with_zero_margins": int(after.sum()),
                "unmasked_loads": [f"line {n}" for n in facts.tail_loads[:4]],
            },
            location=_rows(gone, target),
            suggested_fixes=["boundary_mask"],
            tested="confirmed",
            experiment=finding,
        )
        return Result(
            ExperimentOutcome(
                id="margin_fill",
                question=_question("margin_fill"),
                trials=summaries,
                finding=finding,
                confirms=["boundary_mask_error"],
                refutes=["nan_mismatch", "inf_overflow"],
            ),
            [found],
        )
    finding = (
        f"the NaN/Inf outputs stay ({int(after.sum())} of {int(base.sum())}) with zero margins: "
        "the kernel computes them"
    )
    return Result(
        ExperimentOutcome(id="margin_fill", question=_question("margin_fill"), trials=summaries, finding=finding)
    )


# --- the last partial block ----------------------------------------------------------------------------


@experiment(
    "tail_block",
    "is the error where the last partial block of a BLOCK-sized tiling lies, and nowhere else (no re-run: "
    "the run's own error by position)?",
    tests=("boundary_mask_error",),
)
def tail_block(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    suspected = any(
        d.pattern == "boundary_mask_error"
        and d.tested == "untested"
        and d.output in (None, getattr(target, "name", None))
        for d in diagnoses
    )
    if target is None or not suspected or not target.measured.is_floating_point() or not facts.blocks():
        return None
    a, g = target.a, target.g
    finite = torch.isfinite(a) & torch.isfinite(g)
    own = torch.where(finite, (a - g).abs(), torch.zeros_like(g))
    floor = (target.cpu.to(torch.float64) - g).abs().nan_to_num(0, 0, 0) if target.cpu is not None else 0
    excess = (own - floor).clamp(min=0)
    total = float(excess.sum())
    if total == 0:
        return None
    for axis, block, tail in tail_views(target, facts.blocks()):
        share = float(excess[tail].sum()) / total
        if tail.float().mean() <= 0.5 and share >= T.TAIL_SHARE:
            finding = (
                f"{share:.0%} of the error beyond the CPU control's sits in the last partial block of {block} along "
                f"the {axis} ({int(tail.sum())} of {tail.numel()} elements): "
                "the tail is handled wrongly (mask or bounds)"
            )
            return Result(
                ExperimentOutcome(
                    id="tail_block",
                    question=_question("tail_block"),
                    finding=finding,
                    confirms=["boundary_mask_error"],
                )
            )
    return Result(
        ExperimentOutcome(
            id="tail_block",
            question=_question("tail_block"),
            finding="the error is not confined to a last partial block (this does not rule out a tail bug whose "
            "error spreads, e.g. through a row's max or sum)",
        )
    )


# --- logic or rounding ---------------------------------------------------------------------------------

#: A mean relative error no rounding of a sane kernel reaches (fp16's is ~2^-11).
GROSS_ERROR = 0.05
PRECISION_PATTERNS = (
    "low_precision_accumulation",
    "large_k_accumulation_drift",
    "reduced_precision_dot",
    "rounding_mode_bias",
    "small_value_outliers",
    "cancellation_error",
    "threshold_too_strict",
)


def _signs(seed: int):
    """Inputs replaced by random -1, 0, +1: every product is exact and every sum exact while it
    stays below 2^11 (fp16's integer range), so no rounding error of the kernel survives."""
    generator = torch.Generator().manual_seed(seed % 2**63)

    def transform(t: torch.Tensor) -> torch.Tensor:
        return torch.randint(-1, 2, t.shape, generator=generator).to(t.dtype)

    return transform


def _informative_share(golden: torch.Tensor) -> float:
    g = golden.to(torch.float64).reshape(-1)
    return float((torch.isfinite(g) & (g != 0)).double().mean()) if g.numel() else 0.0


def _degenerate(trial_golden: torch.Tensor | None, run_golden: torch.Tensor) -> str | None:
    """How the reference's output on the exact inputs fails to depend on them (None: it does): NaN /
    Inf everywhere, all zero, one constant, or zero / non-finite on far more elements than on the
    run's own inputs (a running product after its first 0)."""
    if trial_golden is None or not trial_golden.is_floating_point() or trial_golden.numel() == 0:
        return None
    g = trial_golden.to(torch.float64).reshape(-1)
    finite = torch.isfinite(g)
    if not bool(finite.any()):
        return "NaN / Inf everywhere"
    if not bool((g[finite] != 0).any()):
        return "zero wherever it is finite"
    if g.numel() > 1 and bool(finite.all()) and bool((g == g[0]).all()):
        return f"the constant {float(g[0]):g} everywhere"
    share, base = _informative_share(g), _informative_share(run_golden)
    if share < T.EXACT_INPUTS_MIN_INFORMATIVE_SHARE * base:
        return f"zero or non-finite on {1 - share:.0%} of the elements (on the run's inputs {1 - base:.0%})"
    return None


def _low_precision_possible(ctx: RunContext, facts: SourceFacts) -> bool:
    stored = ctx.inputs_of(ctx.primary_seed) or []
    narrow = [t for t in stored if isinstance(t, torch.Tensor) and t.is_floating_point() and t.element_size() < 4]
    outputs = [
        o for o in ctx.outputs if o.actual is not None and o.actual.is_floating_point() and o.actual.element_size() < 4
    ]
    gpu = ctx.result.backend is not None and not ctx.result.backend.interpreter
    return bool(narrow or outputs or facts.mentions_low_precision or (gpu and facts.dot_without_ieee))


@experiment(
    "exact_inputs",
    "does the error survive inputs on which the arithmetic is exact (random -1, 0, +1)?",
    tests=(*PRECISION_PATTERNS, "formula_error", "layout_mismatch"),
)
def exact_inputs(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    if target is None or not _float_inputs(ctx) or not target.measured.is_floating_point():
        return None
    if any(d.output == target.name and d.tested == "confirmed" for d in diagnoses):
        return None  # already explained by an experiment
    trial = runner.run("inputs replaced by random -1, 0, +1 (exact arithmetic)", _signs(ctx.primary_seed or 0))
    summaries = [
        the_run(target),
        summary_of(trial, target.name),
    ]
    r = trial.neutral.get(target.name) if trial.ok else None
    if r is None or _saturated(trial, target.name):
        return Result(
            ExperimentOutcome(
                id="exact_inputs",
                question=_question("exact_inputs"),
                trials=summaries,
                finding=f"inconclusive: {trial.error or 'the trial output is not comparable'}",
            )
        )
    degenerate = _degenerate(trial.golden.get(target.name), target.golden)
    if degenerate is not None:
        return Result(
            ExperimentOutcome(
                id="exact_inputs",
                question=_question("exact_inputs"),
                trials=summaries,
                finding=f"inconclusive: on -1/0/+1 inputs the reference's own output is {degenerate}, so these inputs "
                "cannot exercise the op (a 0 absorbs a product, a log or a division leaves its domain): passing or "
                "failing on them says nothing about rounding or logic",
            )
        )
    # Passing says "rounding" only when the error also fell: a marginal failure (an error just
    # over its bound) can pass on other inputs with the same error, and an indexing error in an op
    # of exp / log / division (which exact inputs do not make exact) keeps its size.
    run_error = relative_error(target.actual, target.golden)
    trial_error = relative_error(trial.actual.get(target.name), trial.golden.get(target.name))
    error_fell = run_error is None or trial_error is None or trial_error * SAME_ERROR_FACTOR <= run_error
    if trial.passed and error_fell:
        finding = (
            "with exact arithmetic the output passes: the failure comes from rounding or range, or from logic these "
            "inputs do not exercise (padding a 0 cannot tell, a running max reached in the first block)"
        )
        return Result(
            ExperimentOutcome(
                id="exact_inputs",
                question=_question("exact_inputs"),
                trials=summaries,
                finding=finding,
                refutes=["layout_mismatch"],
                rounding_shown=True,
            )
        )
    # the error over the whole output (normal-range MERE can be empty when the outputs are small)
    mere = relative_error(trial.actual.get(target.name), trial.golden.get(target.name)) or 0.0
    cpu_out = trial.cpu.get(target.name)
    cpu = relative_error(cpu_out, trial.golden.get(target.name)) if cpu_out is not None else math.inf
    cpu = math.inf if cpu is None else cpu
    # Exact only where the op is: the CPU control errs on these inputs when the op divides or
    # takes exp / sqrt, and then a low-precision kernel errs more without any logic error.
    exact_op = cpu == 0.0
    # no low-precision value anywhere (fp32/fp64 inputs and outputs, no fp16/bf16 in the source,
    # no tf32 dot): an error far beyond the CPU's cannot be a precision loss
    fp32_only = not _low_precision_possible(ctx, facts) and mere >= 100 * max(cpu, 2.0**-23)
    if not (exact_op and mere > 0) and not (mere >= GROSS_ERROR and mere >= 100 * cpu) and not fp32_only:
        return Result(
            ExperimentOutcome(
                id="exact_inputs",
                question=_question("exact_inputs"),
                trials=summaries,
                finding="inconclusive: on these inputs the op itself rounds (the CPU control errs too) "
                f"and the candidate's error ({mere:.3g} of the output, CPU {cpu:.3g}) is not gross",
            )
        )
    still = "still fails" if not trial.passed else f"keeps its error (run {run_error:.3g}; it passes only its bounds)"
    finding = (
        f"with exact arithmetic the output {still} (error {mere:.3g} of the output, CPU control {cpu:.3g}): "
        "no rounding explains it; the kernel computes something else (indexing, offsets, strides, masks or the formula)"
    )
    outcome = ExperimentOutcome(
        id="exact_inputs",
        question=_question("exact_inputs"),
        trials=summaries,
        finding=finding,
        refutes=[*PRECISION_PATTERNS, "inf_overflow"],
    )
    found = []
    explained = any(  # by a diagnosis this outcome leaves standing (inf_overflow is one it refutes)
        d.output in (target.name, None)
        and d.tested != "refuted"
        and d.pattern not in outcome.refutes
        and (d.confidence >= 0.5 or d.tested != "untested")
        for d in diagnoses
    )
    if not explained:
        found.append(
            Diagnosis(
                pattern="formula_error",
                confidence=0.8,
                seed=target.seed,
                output=target.name,
                summary="on inputs where every product and sum is exact the error stays: the kernel computes a "
                "different function (indexing, offsets, strides, masks or the formula); compare them with the "
                "reference's",
                evidence={"experiment": "exact_inputs", "mere_exact_inputs": mere, "cpu_mere_exact_inputs": cpu},
                suggested_fixes=["fix_formula"],
                tested="confirmed",
                experiment=finding,
            )
        )
    return Result(outcome, found)


# --- which input element each output copies ----------------------------------------------------------------


def _source_text(source: tuple[int, list[int]] | None, floats: list[torch.Tensor]) -> str:
    if source is None:
        return "nothing (no input value)"
    number, index = source
    return f"float input {number} {index}" if len(floats) > 1 else f"input {index}"


@experiment(
    "copy_sources",
    "which input element does each output copy? (for an op that only moves data: every input element given "
    "a distinct value, so an output's value names its source, for the reference and the candidate)",
    tests=("layout_mismatch",),
)
def copy_sources(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    floats = _float_inputs(ctx)
    if target is None or not floats or not target.measured.is_floating_point():
        return None
    if any(d.pattern == "layout_mismatch" and d.tested == "confirmed" for d in diagnoses):
        return None
    if not _logic_shown(target, diagnoses) or not copies.copies_inputs(floats, target.golden):
        return None
    tags = copies.tag_pool({t.dtype for t in floats}, sum(t.numel() for t in floats), ctx.primary_seed or 0)
    if tags is None:
        return None
    tagger = copies.Tagger(tags)
    trial = runner.run("every input element given a distinct value", tagger)
    summaries = [the_run(target), summary_of(trial, target.name)]
    actual, golden = trial.actual.get(target.name), trial.golden.get(target.name)
    if not trial.ok or actual is None or golden is None or actual.shape != golden.shape:
        return said("copy_sources", summaries, f"inconclusive: {trial.error or 'the trial output is not comparable'}")
    traced = copies.trace(tagger, actual, golden)
    if traced.copy_op and traced.wrong >= T.COPY_SOURCES_MIN_WRONG and traced.copied >= T.COPY_SOURCES_MIN_SHARE:
        # a max, a min or a sort also outputs input values: only an op whose choice ignores the values moves data
        retag = copies.Tagger(tags.flip(0))
        second = runner.run(
            "every input element given another distinct value (does the reference pick by value?)", retag
        )
        summaries.append(summary_of(second, target.name))
        again = second.golden.get(target.name)
        if (
            not second.ok
            or again is None
            or not copies.same_sources(copies.sources(tagger, golden), copies.sources(retag, again))
        ):
            return said(
                "copy_sources",
                summaries,
                "inconclusive: the reference picks its elements by value (a max, a min, a sort): the candidate's "
                f"{traced.wrong} wrong outputs copy other elements, which a wrong window or comparison does as much "
                "as a layout",
            )
    if not traced.copy_op or traced.wrong < T.COPY_SOURCES_MIN_WRONG or traced.copied < T.COPY_SOURCES_MIN_SHARE:
        what = (
            "the reference does not only move data"
            if not traced.copy_op
            else (f"{traced.copied:.0%} of the {traced.wrong} wrong outputs are copies of an input element")
        )
        return said("copy_sources", summaries, f"no misplaced copies shown: {what}")
    shape = list(target.measured.shape)
    examples = "; ".join(
        f"output {flat_index(out, shape)} copies {_source_text(cand, floats)} where the reference copies "
        f"{_source_text(ref, floats)}"
        for out, cand, ref in traced.examples
    )
    repeats = traced.wrong - traced.distinct_sources
    finding = (
        f"{traced.copied:.0%} of the {traced.wrong} wrong outputs are copies of input elements other than the "
        f"reference's ({traced.distinct_sources} distinct sources"
        + (f", so {repeats} copies repeat a source" if repeats > 0 else "")
        + f"); e.g. {examples}: an index, stride or offset picks the wrong element"
    )
    return confirmed_result(
        "copy_sources",
        summaries,
        finding,
        target,
        "layout_mismatch",
        f"the kernel copies the wrong input elements: {finding}",
        {"wrong_outputs": traced.wrong, "copied_share": traced.copied},
        ["fix_layout"],
    )


# --- memory layout of an input -----------------------------------------------------------------------------


def _inversions(order: tuple[int, ...]) -> int:
    return sum(1 for i in range(len(order)) for j in range(i + 1, len(order)) if order[i] > order[j])


def _layouts(inputs: list) -> list[tuple[int, tuple[int, ...]]]:
    """(input index, dimension order) to try: each tensor input of 2+ dims of size > 1, every order of
    its dims that moves data in memory, fewest swaps first (a transpose, then channels-last and the like)."""
    tried = []
    for index, t in enumerate(inputs):
        if not isinstance(t, torch.Tensor) or t.dim() < 2 or t.dim() > T.INPUT_LAYOUT_MAX_DIMS:
            continue
        real = [d for d in range(t.dim()) if t.shape[d] > 1]
        for order in itertools.permutations(range(t.dim())):
            if [d for d in order if t.shape[d] > 1] != real:  # the same bytes in the same order
                tried.append((index, order))
    return sorted(tried, key=lambda item: (_inversions(item[1]), item[0]))[: T.INPUT_LAYOUT_MAX_TRIALS]


def _stored_as(index: int, order: tuple[int, ...]) -> InputsChange:
    """Input `index` with its memory holding the tensor's dims in `order` (contiguous), under its own shape:
    a kernel that addresses it as if laid out that way reads the right values."""

    def change(inputs: list) -> list:
        t = inputs[index]
        inputs[index] = t.permute(order).contiguous().reshape(t.shape)
        return inputs

    return change


def _dims(order: tuple[int, ...], shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(f"dim {d} [{shape[d]}]" for d in order) + ")"


@experiment(
    "input_layout",
    "does the candidate read an input in another memory layout? (one input stored with its dimensions in "
    "another order, under its own shape: a kernel that addresses it that way then matches the golden)",
    tests=("layout_mismatch",),
)
def input_layout(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    stored = ctx.inputs_of(ctx.primary_seed)
    if target is None or stored is None or not target.measured.is_floating_point():
        return None
    # Only for a logic error an experiment established: a layout error survives exact arithmetic.
    if not _logic_shown(target, diagnoses) or any(
        d.pattern == "layout_mismatch" and d.tested == "confirmed" for d in diagnoses
    ):
        return None
    if runner.remaining_s < T.INPUT_LAYOUT_RESERVE_S:
        return None  # the rest of the budget is the patch trial's
    layouts = _layouts(stored)
    runs = [
        {
            "label": f"input {i} stored as {_dims(order, tuple(stored[i].shape))}",
            "candidate_inputs": _stored_as(i, order),
        }
        for i, order in layouts
    ]
    trials = runner.run_all(runs, stop=lambda trial: trial.passed)
    summaries = [the_run(target)] + [summary_of(trial, target.name) for trial in trials]
    for (index, order), trial in zip(layouts, trials, strict=False):
        if not trial.passed:
            continue
        shape = tuple(stored[index].shape)
        finding = (
            f"stored with its dimensions in the order {_dims(order, shape)} (same shape, same values), input "
            f"{index} makes the candidate pass: the kernel addresses that input as if it were laid out so, "
            f"while the reference reads it as a contiguous {list(shape)} tensor"
        )
        loads = reach.accesses_of(ctx.source, f"input {index}") if ctx.source else []
        result = confirmed_result(
            "input_layout",
            summaries,
            finding,
            target,
            "layout_mismatch",
            f"the kernel reads input {index} {list(shape)} as if its memory held the dimensions in the order "
            f"{_dims(order, shape)}: given that layout it passes. Fix the strides or the index decomposition "
            "of that input (or pass it with .permute(...).contiguous() as the kernel expects)"
            + (f"; it is loaded at line{'s' if len(loads) > 1 else ''} {', '.join(map(str, loads))}" if loads else ""),
            {"input": index, "order": list(order), "load_lines": loads},
            ["fix_layout"],
        )
        if len(loads) == 1:  # the one load of that input: where its address is made
            result.found[0].location = ctx.line_location(loads[0], f"the load of input {index}", f"input {index}")
        return result
    if not trials:
        return None
    return said(
        "input_layout", summaries, f"no other memory layout of an input makes the candidate pass ({len(trials)} tried)"
    )


# --- what masked-off lanes hold --------------------------------------------------------------------------


@experiment(
    "padding_value",
    "do the masked-off lanes of a load enter the result? (the load's `other=` padding alone changed to the "
    "identity of a sum, a product, a max or a min: if one makes the candidate pass, its padding was wrong)",
    tests=("boundary_mask_error",),
)
def padding_value(
    ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]
) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    if target is None or not target.measured.is_floating_point():
        return None
    logic = _logic_shown(target, diagnoses)
    settled = any(d.tested in ("confirmed", "proven") and d.pattern != "formula_error" for d in diagnoses)
    loads = padding.padded_loads(ctx.source)
    if not logic or settled or not loads:
        return None
    if runner.remaining_s < T.INPUT_LAYOUT_RESERVE_S:
        return None  # the rest of the budget is the patch trial's
    changes = [(load, value) for load in loads for value, number in padding.ALTERNATIVES if number != load.value]
    changes = changes[: T.PADDING_MAX_TRIALS]
    runs = [
        {
            "label": f"line {load.line}: other={value}",
            "candidate": padding.with_padding(ctx.source, load, value),
            "inputs_key": UNCHANGED_INPUTS,
        }
        for load, value in changes
    ]
    trials = runner.run_all(runs, stop=lambda trial: trial.passed)
    summaries = [the_run(target)] + [summary_of(trial, target.name) for trial in trials]
    for (load, value), trial in zip(changes, trials, strict=False):
        if not trial.passed:
            continue
        finding = (
            f"with only the padding of the masked load at line {load.line} changed from {load.text} to {value}, "
            "the candidate passes: its masked-off lanes enter the result (a reduction or a normaliser over the "
            "whole block), and the padding must be what they may add: the identity of the operation they feed"
        )
        return confirmed_result(
            "padding_value",
            summaries,
            finding,
            target,
            "boundary_mask_error",
            f"the masked-off lanes of the load at line {load.line} (other={load.text}) take part in the result; "
            f"other={value} makes the candidate pass (or keep those lanes out with tl.where(mask, ...))",
            {"line": load.line, "other": load.text, "passes_with": value},
            ["boundary_mask"],
        )
    if not trials:
        return None
    return said(
        "padding_value", summaries, f"no other padding of a masked load makes the candidate pass ({len(trials)} tried)"
    )


# --- magnitude ---------------------------------------------------------------------------------------------


def _float_inputs(ctx: RunContext) -> list[torch.Tensor]:
    stored = ctx.inputs_of(ctx.primary_seed) or []
    return [t for t in stored if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()]


def _max_abs(tensors: list[torch.Tensor]) -> float:
    values = [float(t.to(torch.float64).abs().nan_to_num(0, 0, 0).max()) for t in tensors]
    return max(values) if values else 0.0


def _scales(tensors: list[torch.Tensor]) -> list[int]:
    """Powers of two to try: bring extreme magnitudes to about 4, else one step each way."""
    m = _max_abs(tensors)
    if m == 0 or not math.isfinite(m):
        return []
    wide = min(t.element_size() for t in tensors) >= 4
    step = 6 if wide else 4
    exponent = math.floor(math.log2(m))
    if exponent > 3:
        return [2 - exponent]
    if exponent < -3:
        return [2 - exponent]
    fmax = min(torch.finfo(t.dtype).max for t in tensors)
    ups = [step] if m * 2.0**step < fmax / 2**10 else []
    return [-step, *ups]


def _saturated(trial: Trial, name: str) -> bool:
    """The trial's golden leaves the output dtype's range: both sides saturate and agree
    trivially, so the trial says nothing about the kernel."""
    a, g = trial.actual.get(name), trial.golden.get(name)
    if a is None or g is None or not a.is_floating_point():
        return False
    return bool((g.to(torch.float64).abs() > torch.finfo(a.dtype).max).any())


def _same_domain(trial: Trial, target: OutputData) -> bool:
    """The scaled outputs stay mostly in the normal range (a scale that turns them into small
    values only moves them under another rule)."""
    base = target.neutral.normal_total_count
    now = trial.neutral[target.name].normal_total_count
    return base is None or now is None or now >= 0.5 * base


def _homogeneous(target: OutputData, trial: Trial, k: int) -> bool:
    """f(2^k x) == 2^(k d) f(x) for one integer degree d on at least 90% of the elements."""
    g, scaled = target.g.reshape(-1), trial.golden.get(target.name)
    if scaled is None or scaled.shape != target.golden.shape:
        return False
    h = scaled.to(torch.float64).reshape(-1)
    usable = torch.isfinite(g) & torch.isfinite(h) & (g != 0) & (h != 0)
    if int(usable.sum()) < 4:
        return False
    degree = float((torch.log2(h[usable].abs() / g[usable].abs()) / k).median())
    d = round(degree)
    if abs(degree - d) > 0.01:
        return False
    close = (h[usable] - g[usable] * 2.0 ** (k * d)).abs() <= 1e-3 * h[usable].abs()
    return float(close.double().mean()) >= 0.9


def _clear_failure(target: OutputData, nonfinite: int) -> bool:
    """A failure well beyond its bound (or NaN/Inf): only then can a trial that passes say that
    the cause went away, rather than that a marginal error moved by its own scatter."""
    r = target.neutral
    mere_bound, mare_bound = float(r.threshold or 0), float(r.mare_threshold or 0)
    return (
        nonfinite > 0
        or (mere_bound > 0 and _mere(r.mere) >= 2 * mere_bound)
        or (mare_bound > 0 and _mere(r.mare) >= 2 * mare_bound)
    )


def _magnitude_finding(
    trials: list[tuple[int, Trial]], target: OutputData, facts: SourceFacts, nonfinite: int
) -> tuple[str, list[PatternId], list[PatternId], PatternId | None]:
    """(finding, confirms, refutes, pattern found) from the scaled trials.

    A power-of-two scale changes no rounding: where only rounding is at work the relative error
    stays the same. A scale that removes the failure (passes, with at least SAME_ERROR_FACTOR
    less error) shows that range or an additive constant is at work."""
    ran = [
        (k, t)
        for k, t in trials
        if t.ok and target.name in t.neutral and not _saturated(t, target.name) and _same_domain(t, target)
    ]
    if not ran:
        return (
            (
                "inconclusive: the scaled trials did not run, saturated the output dtype or moved the outputs into the "
                "small-value domain"
            ),
            [],
            [],
            None,
        )
    base = _mere(target.neutral.mere)

    def fixed(t: Trial) -> bool:
        """The failure is gone: the normal range passes (small-value / cancellation counts may
        still differ: they see the rest of a smaller error), no NaN/Inf, and the error fell."""
        r = t.neutral[target.name]
        trial_bad = _trial_nonfinite(t, target.name)
        error_gone = base > 0 and _mere(r.mere) * SAME_ERROR_FACTOR <= base
        nonfinite_gone = nonfinite > 0 and trial_bad is not None and int(trial_bad.sum()) == 0
        normal_ok = r.dimensions.normal_range is not False and r.dimensions.nan_positions is not False
        return normal_ok and (trial_bad is None or int(trial_bad.sum()) == 0) and (error_gone or nonfinite_gone)

    clear = _clear_failure(target, nonfinite)

    # Only a homogeneous op (a norm, a sum, a matmul: f(2^k x) = 2^(k d) f(x)) keeps its rounding
    # under scaling; for exp, softmax, tanh a scale changes the function, and only NaN/Inf that
    # vanish (overflow) or a misplaced eps (the hypothesis is about a constant) still read.
    def telling(k: int, t: Trial) -> bool:
        if not clear or not fixed(t):
            return False
        nonfinite_gone = nonfinite > 0 and k < 0
        return nonfinite_gone or (k > 0 and bool(facts.eps_outside_sqrt)) or _homogeneous(target, t, k)

    down = [k for k, t in ran if k < 0 and telling(k, t)]
    up = [k for k, t in ran if k > 0 and telling(k, t)]
    base_mare = _mere(target.neutral.mare)

    def within(value: float, reference: float) -> bool:
        return reference > 0 and 1 / SAME_ERROR_FACTOR <= value / reference <= SAME_ERROR_FACTOR

    same = [
        k
        for k, t in ran
        if not fixed(t)
        and within(_mere(t.neutral[target.name].mere), base)
        and within(_mere(t.neutral[target.name].mare), base_mare)
    ]
    if down and not up:
        what = "the Inf/NaN vanish and the output passes" if nonfinite else "the output passes"
        return (
            f"with inputs x 2^{min(down)} {what}: "
            "an intermediate overflows at the task's magnitudes (range, not rounding)",
            ["inf_overflow"],
            [
                "nan_mismatch",
                "all_zero_output",
                "layout_mismatch",
                "low_precision_accumulation",
                "large_k_accumulation_drift",
            ],
            "inf_overflow",
        )
    if up and not down:
        eps = bool(facts.eps_outside_sqrt)
        cause = (
            "an additive constant (eps) is applied outside the square root"
            if eps
            else "an absolute constant or an underflow matters at small magnitudes"
        )
        pattern = "formula_error" if eps else "small_value_outliers"
        return (
            f"with inputs x 2^{max(up)} the output passes, at the task's magnitudes it fails: {cause}",
            [pattern],
            ["layout_mismatch", "low_precision_accumulation", "large_k_accumulation_drift", "inf_overflow"],
            pattern,
        )
    if len(same) == len(ran):
        scales = ", ".join(f"2^{k}" for k, _ in ran)
        # A scale-free error refutes only the formula error that is about an additive constant (eps
        # outside the square root shows at small magnitudes); a wrong factor, index or divisor is as
        # scale-free as rounding and stays open.
        refuted: list[PatternId] = ["inf_overflow"]
        if facts.eps_outside_sqrt:
            refuted.append("formula_error")
        return (
            f"the same error at input scales {scales} (within {SAME_ERROR_FACTOR:g}x): it does not depend on magnitude "
            "(rounding or logic, not range: a wrong factor or index is scale-free too)",
            [],
            refuted,
            None,
        )
    return "inconclusive: the error changes with scale, but no scale removes it", [], [], None


@experiment(
    "input_scale",
    "does the failure depend on the magnitude of the inputs (inputs x powers of two)?",
    tests=(
        "inf_overflow",
        "formula_error",
        "small_value_outliers",
        "nan_mismatch",
        "all_zero_output",
        "layout_mismatch",
        "low_precision_accumulation",
        "large_k_accumulation_drift",
    ),
)
def input_scale(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    floats = _float_inputs(ctx)
    exponents = _scales(floats) if floats and target is not None else []
    if target is None or not exponents or not target.measured.is_floating_point():
        return None
    trials = [(k, runner.run(f"inputs x 2^{k}", (lambda t, k=k: t * 2.0**k))) for k in exponents]
    base = _computed_nonfinite(target)
    nonfinite = int(base.sum()) if base is not None else 0
    finding, confirms, refutes, pattern = _magnitude_finding(trials, target, facts, nonfinite)
    summaries = [the_run(target).model_copy(update={"nonfinite": nonfinite})]
    summaries += [
        summary_of(t, target.name).model_copy(update={"note": "golden outside the dtype's range: not used"})
        if t.ok and _saturated(t, target.name)
        else summary_of(t, target.name)
        for _, t in trials
    ]
    outcome = ExperimentOutcome(
        id="input_scale",
        question=_question("input_scale"),
        trials=summaries,
        finding=finding,
        confirms=confirms,
        refutes=refutes,
    )
    found = []
    if pattern is not None and not any(d.pattern == pattern and d.output == target.name for d in diagnoses):
        found.append(_magnitude_diagnosis(pattern, target, facts, finding, nonfinite))
    return Result(outcome, found)


def _magnitude_diagnosis(
    pattern: PatternId, target: OutputData, facts: SourceFacts, finding: str, nonfinite: int
) -> Diagnosis:
    fixes: list[FixId]
    if pattern == "inf_overflow":
        fixes = (
            ["max_subtraction", "stable_formula"] if facts.exp_without_max else ["fp32_accumulator", "stable_formula"]
        )
        summary = (
            "an intermediate overflows at the task's input magnitudes"
            + (
                f" ({nonfinite} NaN/Inf outputs)"
                if nonfinite
                else " (no Inf reaches the output: it is absorbed, e.g. 1/sqrt(inf) = 0)"
            )
            + ": compute the intermediate in fp32 or rescale it"
        )
    elif pattern == "formula_error":
        lines = ", ".join(f"line {n}" for n in facts.eps_outside_sqrt[:3])
        fixes = ["fix_formula"]
        summary = (
            f"eps is added outside the square root ({lines}): sqrt(v) + eps instead of sqrt(v + eps); "
            "it shows when v is small"
        )
    else:
        fixes = ["stable_formula", "fp32_accumulator"]
        summary = "the error appears only at small input magnitudes: an absolute constant or an underflow in the kernel"
    return Diagnosis(
        pattern=pattern,
        confidence=0.9,
        seed=target.seed,
        output=target.name,
        summary=summary,
        evidence={"experiment": "input_scale"},
        suggested_fixes=fixes,
        tested="confirmed",
        experiment=finding,
    )


# --- cancellation ------------------------------------------------------------------------------------------


@experiment(
    "input_offset",
    "does the error come from subtracting large equal terms (inputs centred, and shifted)?",
    tests=("cancellation_error", "small_value_outliers", "low_precision_accumulation"),
)
def input_offset(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    floats = _float_inputs(ctx)
    suspected = facts.one_pass_variance or any(
        d.pattern in ("cancellation_error", "small_value_outliers") for d in diagnoses
    )
    if target is None or not floats or not suspected or not target.measured.is_floating_point():
        return None
    rms = math.sqrt(sum(float(t.to(torch.float64).nan_to_num(0, 0, 0).pow(2).mean()) for t in floats) / len(floats))
    if rms == 0:
        return None
    wide = min(t.element_size() for t in floats) >= 4
    shift = 2.0 ** (8 if wide else 4) * rms
    centred = runner.run("inputs centred (each minus its mean)", lambda t: t - t.mean())
    shifted = runner.run(f"inputs + {shift:.3g}", lambda t: t + shift)
    summaries = [
        the_run(target),
        summary_of(centred, target.name),
        summary_of(shifted, target.name),
    ]

    def ratio(trial: Trial) -> float:
        r = trial.neutral.get(target.name)
        if r is None:
            return math.nan
        cpu = _mere(r.cpu_control.mere) if r.cpu_control else 0.0
        return _mere(r.mere) / max(cpu, 1e-300)

    if centred.ok and shifted.ok and centred.passed and not shifted.passed and ratio(shifted) >= 10:
        lines = ", ".join(f"line {n}" for n in facts.one_pass_variance[:3])
        finding = (
            f"centred inputs pass; shifted by {shift:.3g} the error is {ratio(shifted):.3g}x the CPU control's: "
            "the kernel subtracts large nearly equal terms" + (f" (E[x^2] - E[x]^2 at {lines})" if lines else "")
        )
        outcome = ExperimentOutcome(
            id="input_offset",
            question=_question("input_offset"),
            trials=summaries,
            finding=finding,
            confirms=["cancellation_error"],
            refutes=["small_value_outliers", "low_precision_accumulation"],
        )
        found = []
        if not any(d.pattern == "cancellation_error" and d.output == target.name for d in diagnoses):
            found.append(
                Diagnosis(
                    pattern="cancellation_error",
                    confidence=0.9,
                    seed=target.seed,
                    output=target.name,
                    summary="catastrophic cancellation: " + finding.split(": ", 1)[-1],
                    evidence={"experiment": "input_offset"},
                    suggested_fixes=["stable_formula", "kahan_summation"],
                    tested="confirmed",
                    experiment=finding,
                )
            )
        return Result(outcome, found)
    finding = (
        "inconclusive: centring and shifting the inputs do not separate the failure"
        if not (centred.ok and shifted.ok)
        else "no cancellation: the error does not grow with a shift of the inputs beyond the CPU control's"
    )
    # cancellation survives centring and grows with a shift: a failure that centring keeps, or that a shift (which
    # makes every sum of the inputs' terms larger and nearer equal) removes, is not one
    refutes: list[PatternId] = (
        ["cancellation_error"] if centred.ok and shifted.ok and (not centred.passed or shifted.passed) else []
    )
    return Result(
        ExperimentOutcome(
            id="input_offset", question=_question("input_offset"), trials=summaries, finding=finding, refutes=refutes
        )
    )


# --- accumulation length -----------------------------------------------------------------------------------

ACCUMULATION_PATTERNS = ("low_precision_accumulation", "large_k_accumulation_drift")
#: Reduction lengths of the trials, as fractions of the task's: 1/16 and 1/4 (with the run, K).
LENGTH_FRACTIONS = (16, 4)
#: Log-log slope of the relative error against K: random rounding grows like sqrt(K) (0.5), a
#: systematic loss (an accumulator whose increments fall below its ulp) like K (1). Midpoints.
SYSTEMATIC_SLOPE = 0.75
FLAT_SLOPE = 0.25
MIN_LENGTH = 16


def _truncation(ctx: RunContext, length: int, full: int):
    """Inputs whose reduced axis keeps its first `length` entries and zeros the rest: the same op
    over a shorter K (trailing zeros add exactly nothing, in the candidate's arithmetic too). None
    where zeros do not shorten the op (only matmuls and reductions over the last axis)."""
    floats = _float_inputs(ctx)
    golden = ctx.outputs[0].golden if ctx.outputs else None
    if ctx.matmul and len(floats) >= 2:
        a, b = floats[0].to(torch.float64), floats[1].to(torch.float64)

        def matmul_transform(t: torch.Tensor) -> torch.Tensor:
            t = t.clone()
            if t.shape == a.shape and torch.equal(t, a):
                t[..., length:] = 0
            elif t.shape == b.shape and torch.equal(t, b):
                t[..., length:, :] = 0
            return t

        return matmul_transform
    if len(floats) == 1 and golden is not None and floats[0].dim() >= 1 and floats[0].shape[-1] == full:
        kept = tuple(floats[0].shape[:-1])
        if tuple(golden.shape) in (kept, (*kept, 1)):

            def row_transform(t: torch.Tensor) -> torch.Tensor:
                t = t.clone()
                t[..., length:] = 0
                return t

            return row_transform
    return None


@experiment(
    "reduction_length",
    "does the error grow with the reduction length like K (a systematic accumulation loss) or like sqrt(K) "
    "(random rounding)? (the reduced axis zeroed past K/16 and K/4)",
    tests=ACCUMULATION_PATTERNS,
)
def reduction_length(
    ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]
) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    full = ctx.compute_num
    suspected = [
        d
        for d in diagnoses
        if d.pattern in ACCUMULATION_PATTERNS
        and d.tested == "untested"
        and d.output in (None, getattr(target, "name", None))
    ]
    if target is None or not suspected or full is None or full < MIN_LENGTH * LENGTH_FRACTIONS[0]:
        return None
    if any(d.tested in ("confirmed", "proven") for d in diagnoses):
        return None  # an experiment already explained it: the sweep cannot change the answer
    lengths = [full // f for f in LENGTH_FRACTIONS]
    if _truncation(ctx, lengths[0], full) is None:
        return None

    def excess(actual, golden, cpu) -> float | None:
        """The candidate's error beyond the CPU control's: what the kernel adds to the rounding of
        the output itself (which does not grow with K and would flatten the slope)."""
        own = relative_error(actual, golden)
        floor = relative_error(cpu, golden) if cpu is not None else 0.0
        return None if own is None else own - (floor or 0.0)

    trials = [
        (k, runner.run(f"reduction length {k} of {full} (the rest zeroed)", _truncation(ctx, k, full))) for k in lengths
    ]
    summaries = [
        TrialSummary(
            label=f"the run (K = {full})", ran=True, passed=False, mere=target.neutral.mere, mare=target.neutral.mare
        )
    ] + [summary_of(t, target.name) for _, t in trials]
    measured = [
        (k, excess(t.actual.get(target.name), t.golden.get(target.name), t.cpu.get(target.name)))
        for k, t in trials
        if t.ok
    ]
    measured.append((full, excess(target.actual, target.golden, target.cpu)))
    points = [(k, e) for k, e in measured if e is not None and e > 0]
    if len(points) < 2 or points[-1][0] != full:
        finding = "inconclusive: the shortened trials did not run, or the error beyond the CPU's is not measurable"
        return Result(
            ExperimentOutcome(
                id="reduction_length", question=_question("reduction_length"), trials=summaries, finding=finding
            )
        )
    (k0, e0), (k1, e1) = points[0], points[-1]
    slope = math.log(e1 / e0) / math.log(k1 / k0)
    # not the trials' MERE: sum |error| / sum |golden| beyond the CPU control's, per reduction length
    growth = "error beyond the CPU's, sum|err|/sum|golden|: " + ", ".join(f"K={k}: {e:.3g}" for k, e in points)
    confirms: list[PatternId] = []
    refutes: list[PatternId] = []
    steady = all(later > earlier for (_, earlier), (_, later) in itertools.pairwise(points))
    # What rounding can lose summing K terms: K u of their magnitude (Higham), taken as 4 K^1.5 u of the result's
    # (a sum of random-sign terms is ~sqrt(K) times smaller than their magnitudes), u of the narrowest precision
    # the kernel can hold; in an fp32-only kernel an error beyond that is no accumulation loss at all.
    unit = 2.0**-11 if _low_precision_possible(ctx, facts) else 2.0**-24
    bound = 4 * full**1.5 * unit
    if slope >= SYSTEMATIC_SLOPE and points[-1][1] > bound:
        finding = (
            f"the error grows with the reduction length ({growth}) but at K={full} exceeds what rounding can lose "
            f"summing {full} terms in the kernel's precision (4 K^1.5 u = {bound:.3g}): no accumulation loss, a logic "
            "error that grows with the number of terms or chunks"
        )
        refutes = ["low_precision_accumulation", "large_k_accumulation_drift"]
    elif slope >= SYSTEMATIC_SLOPE and not steady:
        # an error that falls with K somewhere and then jumps is no accumulation: a chunked kernel whose
        # logic error shows only once K spans several chunks (an online max without rescaling)
        finding = (
            f"the error does not grow steadily with the reduction length ({growth}): it falls, then jumps; "
            "no systematic accumulation loss (a logic error that shows beyond one chunk looks like this)"
        )
    elif slope >= SYSTEMATIC_SLOPE:
        # a first length where the sum is still exact (error ~1e-12) makes the end-to-end exponent
        # meaningless (K^6): say how far it grew instead
        rate = f"like K^{slope:.2f}" if slope <= 3 else f"{e1 / e0:.2g}x from K={k0} to K={k1}"
        finding = f"the error grows {rate} ({growth}): a systematic loss that accumulates with the reduction length"
        confirms = [d.pattern for d in suspected]
    elif slope <= FLAT_SLOPE:
        # a tree reduction (tl.sum) in low precision errs about as much at every length: this
        # refutes only a drift that needs a long sequential accumulation
        finding = f"the error does not grow with the reduction length (K^{slope:.2f}: {growth}): no drift with K"
        refutes = ["large_k_accumulation_drift"]
    else:
        finding = (
            f"the error grows like K^{slope:.2f} ({growth}), about sqrt(K): random rounding along the reduction, "
            "no systematic loss (this neither confirms nor refutes a low-precision accumulator)"
        )
    return Result(
        ExperimentOutcome(
            id="reduction_length",
            question=_question("reduction_length"),
            trials=summaries,
            finding=finding,
            confirms=confirms,
            refutes=refutes,
        )
    )


# --- inputs the kernel never reads ---------------------------------------------------------------


def _slices(t: torch.Tensor, trailing: int) -> torch.Tensor | None:
    """`t` as rows of its `trailing` last dims (the slices a reduction over them reads), or None."""
    if t.dim() < trailing or t.numel() == 0:
        return None
    length = math.prod(t.shape[-trailing:])
    return t.reshape(-1, length) if length >= 2 else None


def _tail_size(length: int, block: int | None) -> int:
    """1 (the last element), or the elements of the last partial block of `block` (0: none)."""
    if block is None:
        return 1
    return length % block if length > block else 0


def _copy_between_ends(trailing: int, block: int | None, into: str) -> InputTransform:
    """Each slice's tail (its last element, or its last partial block) overwritten with as many of its first
    elements (into "tail"), its head with its tail ("head"), or the as many elements just before the tail
    with its first ones ("before_tail"): values from the same data, so every domain (positive, bounded, ...)
    holds."""

    def transform(t: torch.Tensor) -> torch.Tensor:
        rows = _slices(t.clone(), trailing)
        if rows is None:
            return t
        n = rows.shape[1]
        size = _tail_size(n, block)
        if size == 0 or 3 * size > n:
            return t
        head, tail, before = slice(0, size), slice(n - size, n), slice(n - 2 * size, n - size)
        if into == "head":
            rows[:, head] = rows[:, tail].clone()
        else:
            rows[:, tail if into == "tail" else before] = rows[:, head].clone()
        return rows.reshape(t.shape)

    return transform


def _unmoved(target: OutputData, trial: Trial) -> tuple[int, int] | None:
    """(outputs a same-precision computation sees move by T.UNREAD_TAIL_CHANGE_ULPS or more in the trial, how many
    of them the candidate left bit-for-bit equal); None when the trial is not comparable."""
    name, run = target.name, target.measured
    actual, golden, cpu = trial.actual.get(name), trial.golden.get(name), trial.cpu.get(name)
    if actual is None or golden is None or actual.shape != run.shape or not actual.is_floating_point():
        return None
    before, after = (target.cpu, cpu) if target.cpu is not None and cpu is not None else (target.golden, golden)
    before, after = before.to(torch.float64), after.to(torch.float64)
    eps = torch.finfo(actual.dtype).eps
    moved = (after - before).abs() >= T.UNREAD_TAIL_CHANGE_ULPS * eps * torch.maximum(before.abs(), after.abs())
    moved &= torch.isfinite(before) & torch.isfinite(after) & (after != before)
    # an output that is NaN / Inf in the run cannot show whether it follows its inputs: left out
    moved &= torch.isfinite(run)
    same = actual == run
    return int(moved.sum()), int((moved & same).sum())


def _tail_regions(floats: list[torch.Tensor], blocks: list[int]) -> list[tuple[int, int | None]]:
    """(trailing dims, block or None for the last element) to try: the last axis, then the last two
    (a reduction over planes); per view the last partial block of the first BLOCK size that leaves
    one, then the last element."""
    regions: list[tuple[int, int | None]] = []
    for trailing in (1, 2):
        lengths = [rows.shape[1] for t in floats if (rows := _slices(t, trailing)) is not None]
        if not lengths or (trailing == 2 and not any(t.dim() >= 3 for t in floats)):
            continue
        block = next((b for b in blocks if any(1 < _tail_size(n, b) <= n // 2 for n in lengths)), None)
        if block is not None:  # the larger region first: a loop that stops before it skips its last element too
            regions.append((trailing, block))
        regions.append((trailing, None))
    return regions[: T.UNREAD_TAIL_MAX_TRIALS]


def _region_text(trailing: int, block: int | None) -> str:
    what = "the last element" if block is None else f"the last partial block of {block}"
    return f"{what} of each {'row' if trailing == 1 else 'plane (last two dims)'}"


@experiment(
    "unread_tail",
    "does the candidate read the tail of each row (its last element, its last partial block)? (the tail's inputs "
    "replaced by the head's: outputs a same-precision computation sees change must change)",
    tests=("boundary_mask_error",),
)
def unread_tail(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = unexplained_output(ctx, diagnoses)
    floats = _float_inputs(ctx)
    if target is None or target.actual is None or not target.actual.is_floating_point() or not floats:
        return None
    if any(d.tested in ("confirmed", "proven") and d.pattern != "formula_error" for d in diagnoses):
        return None  # explained: which elements are read cannot change the answer
    summaries = [the_run(target)]
    partly = []  # tails some dependent outputs ignore: read less often than the reference does, not never
    for trailing, block in _tail_regions(floats, facts.blocks()):
        region = _region_text(trailing, block)
        trial = runner.run(f"{region} replaced by its first elements", _copy_between_ends(trailing, block, "tail"))
        summaries.append(summary_of(trial, target.name))
        counts = _unmoved(target, trial) if trial.ok else None
        if (
            counts is None
            or counts[0] < T.UNREAD_TAIL_MIN_OUTPUTS
            or counts[1] < T.UNREAD_TAIL_MIN_UNMOVED_SHARE * counts[0]
        ):
            if counts is not None and counts[1]:
                partly.append(
                    f"{region}: {counts[1]} of the {counts[0]} dependent outputs stay the same (it is read for fewer "
                    "outputs than the reference reads it for)"
                )
            continue
        control = runner.run(
            f"the head of each slice replaced by {region}", _copy_between_ends(trailing, block, "head")
        )
        summaries.append(summary_of(control, target.name))
        head = _unmoved(target, control) if control.ok else None
        if head is None or head[0] == 0 or head[1] >= T.UNREAD_TAIL_MAX_HEAD_UNMOVED_SHARE * head[0]:
            break  # it ignores its head as well: not a tail
        # A loop or mask that stops short reads everything up to the tail; an index that never reaches the
        # upper part of the slice (half of a table) ignores what lies just before the tail as well.
        inner = runner.run(
            f"as many elements just before {region} replaced by the first ones",
            _copy_between_ends(trailing, block, "before_tail"),
        )
        summaries.append(summary_of(inner, target.name))
        before = _unmoved(target, inner) if inner.ok else None
        if before is None or before[0] == 0 or before[1] >= T.UNREAD_TAIL_MAX_HEAD_UNMOVED_SHARE * before[0]:
            partly.append(
                f"{region}: unread, and so is what lies just before it (not a tail: an index that never gets there)"
            )
            break
        finding = (
            f"when {region} changes, {counts[1]} of the {counts[0]} outputs a same-precision computation sees "
            f"change stay bit-for-bit the same, while the candidate follows a change of the head "
            f"({head[0] - head[1]} of {head[0]} move): the kernel never reads that tail (a loop bound or a mask "
            "that stops short of the end)"
        )
        outcome = ExperimentOutcome(
            id="unread_tail",
            question=_question("unread_tail"),
            trials=summaries,
            finding=finding,
            confirms=["boundary_mask_error"],
        )
        found = []
        if not any(d.pattern == "boundary_mask_error" and d.output in (target.name, None) for d in diagnoses):
            found.append(
                Diagnosis(
                    pattern="boundary_mask_error",
                    confidence=0.9,
                    seed=target.seed,
                    output=target.name,
                    summary=f"the kernel never reads {region}: {counts[1]} of the {counts[0]} outputs that depend on "
                    "it stay bit-for-bit the same when it changes (a loop bound or a mask stops short of the end)",
                    evidence={"experiment": "unread_tail", "unmoved_outputs": counts[1], "moved_in_cpu": counts[0]},
                    suggested_fixes=["boundary_mask", "fix_formula"],
                    tested="confirmed",
                    experiment=finding,
                )
            )
        return Result(outcome, found)
    if len(summaries) == 1:
        return None
    return Result(
        ExperimentOutcome(
            id="unread_tail",
            question=_question("unread_tail"),
            trials=summaries,
            finding=f"no unread tail: {'; '.join(partly)}"
            if partly
            else "the candidate follows changes of the tail of its rows: it reads them",
        )
    )


# --- intervention: the fix itself ---------------------------------------------------------------------

MAX_PATCH_TRIALS = 3


@experiment(
    "patch_trial",
    "does the fix of a hypothesis, applied to the candidate, make it pass (an intervention)?",
    tests=(
        "boundary_mask_error",
        "layout_mismatch",
        "low_precision_accumulation",
        "inf_overflow",
        "rounding_mode_bias",
        "cancellation_error",
        "small_value_outliers",
        "nan_mismatch",
        "formula_error",
        "large_k_accumulation_drift",
        "reduced_precision_dot",
        "all_zero_output",
        "unwritten_output",
    ),
)
def patch_trial(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    # after a proven or specifically confirmed cause there is nothing to decide; the generic
    # formula_error (logic somewhere) still leaves which logic open
    if ctx.result.verdict != "fail" or any(
        d.tested in ("confirmed", "proven") and d.pattern != "formula_error" for d in diagnoses
    ):
        return None
    tried: list[tuple[Diagnosis, str, Trial]] = []
    seen: set[str] = set()
    for d in sorted(
        (d for d in diagnoses if d.tested == "untested" and d.pattern != "formula_error"), key=lambda d: -d.confidence
    ):
        for fix in d.suggested_fixes:
            patched = FIXES[fix].patch(ctx.source) if fix in FIXES and fix not in seen else None
            seen.add(fix)
            if patched is None or len(tried) >= MAX_PATCH_TRIALS:
                continue
            tried.append(
                (d, fix, runner.run(f"candidate patched with {fix}", candidate=patched, inputs_key=UNCHANGED_INPUTS))
            )
            if tried[-1][2].passed:
                break
        if tried and tried[-1][2].passed:
            break
    if not tried:
        return None
    summaries = [summary_of(t, d.output or next(iter(t.neutral), "output")) for d, _, t in tried]
    winner = next(((d, fix) for d, fix, t in tried if t.passed), None)
    if winner is None:
        return Result(
            ExperimentOutcome(
                id="patch_trial",
                question=_question("patch_trial"),
                trials=summaries,
                finding=f"no tried fix ({', '.join(f for _, f, _ in tried)}) makes the candidate pass",
            )
        )
    d, fix = winner
    finding = f"the candidate patched with {fix} passes on the same inputs: {d.pattern} is the cause"
    return Result(
        ExperimentOutcome(
            id="patch_trial", question=_question("patch_trial"), trials=summaries, finding=finding, confirms=[d.pattern]
        )
    )
