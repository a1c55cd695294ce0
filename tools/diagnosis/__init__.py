"""explain_failure: which failure pattern a stored run shows, with evidence, tested by experiment.

Flow: load the stored run (standard-neutral facts per output) -> detectors propose diagnoses
(registry order, with suppression) -> experiments re-run the candidate under controlled input
changes and confirm, refute or add diagnoses -> ranked, with a heatmap of the primary output.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import torch

from tools import shapes
from tools import thresholds as T
from tools.code_version import code_version
from tools.diagnosis import (  # noqa: F401 - registries
    access,
    applicable,
    context,
    contiguity,
    detectors,
    experiments,
    fingerprint,
    heatmap,
    lane_offset,
    repair,
    replay,
    stored_value,
    stores,
)
from tools.diagnosis.detectors import flat_index
from tools.diagnosis.registry import DETECTORS, EXPERIMENTS
from tools.diagnosis.trials import TrialBudgetExceeded, TrialRunner
from tools.errors import ToolInputError
from tools.models.accuracy import ShapeCheck, ShapeRun
from tools.models.diagnosis import Diagnosis, ExperimentOutcome, ExplainRequest, ExplainResult
from tools.models.task import Timings
from tools.repair import reach, source
from tools.services import progress_reporter, services

HEATMAP_NAME = "heatmap.png"
#: The last explanation with experiments, kept beside the run for suggest_fix (which would otherwise run every
#: experiment again): valid for the code that made it (tools.code_version).
EXPLANATION_NAME = "explanation.json"
NOT_RUN = "not run:"
CONFIRMED_CONFIDENCE = 0.95


def heatmap_uri(run_id: str) -> str:
    return f"kernel-eval://runs/{run_id}/heatmap.png"


def _rank(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """Confirmed first, then by confidence; one diagnosis per (pattern, output), the best."""
    order = {"proven": 0, "confirmed": 0, "untested": 1, "refuted": 2}

    def standing(d: Diagnosis) -> tuple:  # an edit that made the candidate pass outranks an equal finding
        return (order[d.tested], -d.confidence, "edit_after" not in d.evidence)

    best: dict[tuple, Diagnosis] = {}
    for d in diagnoses:
        key = (d.pattern, d.output)
        if key not in best or standing(d) < standing(best[key]):
            best[key] = d
    for d in diagnoses:  # the kept one of a (pattern, output) keeps the source line another of them found
        kept = best[(d.pattern, d.output)]
        if d is not kept and d.tested != "refuted" and _line_of(d) and not _line_of(kept):
            kept.location = d.location
    return sorted(best.values(), key=standing)


def _where(d: Diagnosis) -> str:
    """` (line N: code)` for a located diagnosis whose summary does not say the line already."""
    line = _line_of(d)
    if not line or f"line {line}" in d.summary or d.location is None:
        return ""
    return f" (line {line}: {d.location.code})" if d.location.code else f" (line {line})"


def _line_of(d: Diagnosis) -> int | None:
    return d.location.line if d.location is not None else None


def _error_maps(target: context.OutputData, tile: int | None, image: bool) -> tuple[bytes | None, str | None]:
    """(the heatmap PNG when `image`, the same map as text) of one output."""
    if (
        target.actual is None
        or target.golden is None
        or target.actual.shape != target.golden.shape
        or target.actual.numel() == 0
    ):
        return None, None
    a, g = target.a, target.g
    rel = (a - g).abs() / (g.abs() + T.RELATIVE_ERROR_EPS)
    nan_mismatch = torch.isnan(a) ^ torch.isnan(g)
    unwritten = target.unwritten()
    maps = (target.as_2d(rel), target.as_2d(nan_mismatch), target.as_2d(unwritten) if unwritten.numel() else unwritten)
    return (heatmap.render(*maps, tile) if image else None), heatmap.render_text(*maps)


def _fingerprint(ctx: context.RunContext) -> None:
    """Matmul-like ops: the first seed's output against emulated precision models (no sandbox)."""
    if not (ctx.matmul and len(ctx.inputs) >= 2 and ctx.result.seeds):
        return
    floats = [t for t in ctx.inputs if isinstance(t, torch.Tensor) and t.is_floating_point()]
    seed = ctx.result.seeds[0].seed
    first = next((o for o in ctx.outputs if o.seed == seed), None)
    if len(floats) >= 2 and first is not None and first.actual is not None and first.actual.is_floating_point():
        ctx.fingerprint, ctx.fingerprint_seed = (
            fingerprint.matmul_models(floats[0], floats[1], first.actual, ctx.source),
            seed,
        )


def detect(ctx: context.RunContext, facts: source.SourceFacts) -> list[Diagnosis]:
    """Every registered detector, in registry order; per output of the primary seed."""
    found: list[Diagnosis] = []
    outputs = [
        o
        for o in ctx.outputs
        if o.seed == ctx.primary_seed and o.actual is not None and o.actual.shape == o.golden.shape
    ]
    suppressed: dict[str, set[str]] = {o.name: set() for o in outputs}
    for det in DETECTORS.values():
        if det.scope == "run":
            found += _marked(det.fn(ctx, facts), det)
            continue
        for o in outputs:
            if det.id in suppressed[o.name] or (det.only_failed and not o.failed):
                continue
            proposed = det.fn(ctx, o, facts)
            if proposed and det.suppresses:
                suppressed[o.name].update(det.suppresses)
            found += _marked(proposed, det)
    return found


def _marked(diagnoses: list[Diagnosis], det) -> list[Diagnosis]:
    if det.proof:
        for d in diagnoses:
            d.tested = "proven"
    return diagnoses


def _apply(diagnoses: list[Diagnosis], outcome: ExperimentOutcome, found: Sequence[Diagnosis] = ()) -> None:
    """An experiment's confirmations and refutations, applied to the diagnoses so far. Where the experiment made
    its own diagnosis of a pattern (with what it showed: a line, a tensor), that one carries the confirmation: an
    earlier hypothesis of the same pattern (a static guess about other lines) is not confirmed by it."""
    own = {d.pattern for d in found}
    for d in diagnoses:
        if d.tested == "proven" or any(d is f for f in found):
            continue
        if d.pattern in outcome.confirms and d.pattern not in own and d.tested != "refuted":
            d.tested, d.experiment = "confirmed", outcome.finding
            d.confidence = max(d.confidence, CONFIRMED_CONFIDENCE)
        elif d.pattern in outcome.refutes and d.tested != "confirmed":
            d.tested, d.experiment = "refuted", outcome.finding
            d.confidence = round(d.confidence * T.REFUTED_FACTOR, 3)


def run_experiments(
    ctx: context.RunContext,
    facts: source.SourceFacts,
    diagnoses: list[Diagnosis],
    budget_s: float,
    report,
    cancel,
    skip: frozenset[str] = frozenset(),
) -> list[ExperimentOutcome]:
    """Every applicable registered experiment, within the budget; their findings applied to `diagnoses`."""
    runner = TrialRunner(ctx, budget_s, cancel, report=lambda label: report(0.5, f"experiment: {label}"))
    outcomes = []
    refuted: set[str] = set()  # what an earlier experiment refuted stays refuted: a later one may not re-find it
    for exp in EXPERIMENTS.values():
        if exp.id in skip:
            continue
        try:
            result = exp.fn(ctx, runner, facts, diagnoses)
        except TrialBudgetExceeded:
            outcomes.append(
                ExperimentOutcome(
                    id=exp.id,
                    question=exp.question,
                    finding=f"{NOT_RUN} the experiment budget ({budget_s:g} s) was spent or the call was cancelled",
                    ran=False,
                )
            )
            break
        except Exception as exc:  # noqa: BLE001 - one experiment's fault must not lose the whole explanation
            outcomes.append(
                ExperimentOutcome(
                    id=exp.id,
                    question=exp.question,
                    finding=f"{NOT_RUN} the experiment failed ({type(exc).__name__}: {str(exc)[:200]})",
                    ran=False,
                )
            )
            continue
        if result is None:
            continue
        result.outcome.confirms = [p for p in result.outcome.confirms if p not in refuted]
        diagnoses.extend(d for d in result.found if d.pattern not in refuted)
        _apply(diagnoses, result.outcome, result.found)
        refuted.update(result.outcome.refutes)
        outcomes.append(result.outcome)
        ctx.outcomes[exp.id] = result.outcome
        if result.settled:
            break
    return outcomes


#: The worst elements a failure no pattern matched is described by.
WORST_SHOWN = 3


def _where_it_differs(ctx: context.RunContext) -> str:
    """What the run itself shows of a failure no pattern matched (facts, no cause): the first failing output, how many
    of its elements differ (integer and bool outputs: any difference) and the worst of them, got vs the golden."""
    target = repair.failing_output(ctx)
    if target is None or target.measured.is_complex() or target.measured.numel() == 0:
        return ""
    a, g = target.a.reshape(-1), target.g.reshape(-1)
    error = (a - g).abs()
    error = torch.where(torch.isnan(a) & torch.isnan(g), 0.0, torch.nan_to_num(error, nan=float("inf")))
    worst = [int(i) for i in torch.argsort(error, descending=True, stable=True)[:WORST_SHOWN] if error[i] > 0]
    if not worst:
        return ""
    shape, got, want = tuple(target.measured.shape), target.measured.reshape(-1), target.golden.reshape(-1)
    shown = "; ".join(f"{list(flat_index(i, shape))}: {_value(got[i])} (golden {_value(want[i])})" for i in worst)
    exact = not target.measured.is_floating_point()
    count = f" differs at {int((error > 0).sum())} of {a.numel()} elements" if exact else f" ({a.numel()} elements)"
    return f"{target.name}{count}, the worst at {shown}"


def _value(v: torch.Tensor) -> str:
    x = v.item()
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _without_tensors(ctx: context.RunContext) -> bool:
    return ctx.result.verdict == "fail" and not ctx.tensors_kept


def _kept(run_id: str) -> dict | None:
    try:
        kept = json.loads((services().runs.path(run_id) / EXPLANATION_NAME).read_text())
    except (OSError, ValueError, ToolInputError):
        return None
    return kept if isinstance(kept, dict) and kept.get("code") == code_version() else None


def stored_explanation(run_id: str) -> ExplainResult | None:
    """The explanation an explain_failure call with experiments kept for this run, made by this code."""
    kept = _kept(run_id)
    try:
        return ExplainResult.model_validate(kept["result"]) if kept is not None else None
    except (ValueError, KeyError, TypeError):
        return None


def _options(request: ExplainRequest) -> dict:
    """What makes two calls the same explanation: the switches and the experiments registered (tests
    take some out); a budget does not (only an explanation no budget cut short is kept)."""
    return {"search": request.search, "heatmap": request.heatmap, "experiments": sorted(EXPERIMENTS)}


def _same_call(request: ExplainRequest) -> ExplainResult | None:
    kept = _kept(request.run_id)
    if kept is None or kept.get("options") != _options(request):
        return None
    result = stored_explanation(request.run_id)
    return None if result is None else result.model_copy(update={"cached": True})


def _keep(result: ExplainResult, request: ExplainRequest, cancel) -> None:
    if (cancel is not None and cancel.is_set()) or any(not o.ran for o in result.experiments):
        return  # cut short: a later call should run the experiments
    kept = {"code": code_version(), "options": _options(request), "result": result.model_dump(mode="json")}
    try:
        services().runs.save_file(result.run_id, EXPLANATION_NAME, json.dumps(kept).encode())
    except ToolInputError:
        pass  # evicted meanwhile


def shape_failure(run_id: str) -> tuple[ShapeRun | None, bool]:
    """(the first failing size of the run's shape check, a stored run of its own, or None; whether that
    failure is the run's verdict: shapes_mode=require)."""
    stored = services().runs.result(run_id)
    check = stored.get("shapes")
    failed = ShapeCheck.model_validate(check).first_failure() if check else None
    if failed is None or not failed.run_id:
        return None, False
    return failed, stored.get("verdict") == "fail"


def explain_failure(request: ExplainRequest, progress=None, cancel=None) -> ExplainResult:
    """Raises ToolInputError for an unknown run_id. A run failed by its shape check (shapes_mode=require) is
    explained by the failing size's run (its run_id is the result's); a passing run whose shape check
    warned is explained as passing, with a next step that points at that size's run."""
    failed, decided = shape_failure(request.run_id)
    if failed is not None and decided:
        inner = explain_failure(request.model_copy(update={"run_id": failed.run_id}), progress, cancel)
        where = shapes.describe(failed.sizes)
        note = f"run {request.run_id} is right at the task's sizes; its shape check's run at {where} (this run_id): "
        return inner.model_copy(update={"summary": note + inner.summary})
    result = _explain(request, progress, cancel)
    if failed is not None:
        where = shapes.describe(failed.sizes)
        step = f"the shape check failed at {where}: call explain_failure(run_id={failed.run_id!r}) for that size"
        result = result.model_copy(update={"next_step": step})
    return result


def _with_tensor(ctx: context.RunContext, diagnosis: Diagnosis) -> Diagnosis:
    """A diagnosis located at a candidate line names the tensor that line's value reaches (tools/repair/reach.py)
    where its own evidence named none."""
    location = diagnosis.location
    if location is None or not location.line or location.tensor or location.file != ctx.task.candidate_name:
        return diagnosis
    return diagnosis.model_copy(update={"location": reach.with_tensor(location, ctx.source)})


def _explain(request: ExplainRequest, progress=None, cancel=None) -> ExplainResult:
    report = progress_reporter(progress)
    started = time.perf_counter()
    if request.experiments:
        again = _same_call(request)
        if again is not None:
            report(1.0, "the explanation made for this run with these options")
            return again.model_copy(update={"timings": Timings(total_s=time.perf_counter() - started)})
    ctx = context.load(request.run_id)
    facts = source.analyze(ctx.source)
    report(0.1, "reading the run")
    if request.experiments:
        report(0.2, "precision fingerprint: emulated goldens")
        _fingerprint(ctx)
    report(0.3, "pattern detectors")
    diagnoses = detect(ctx, facts)
    outcomes: list[ExperimentOutcome] = []
    if request.experiments and ctx.result.verdict == "fail" and ctx.tensors_kept:
        skip = frozenset() if request.search else frozenset({repair.ID})
        outcomes = run_experiments(ctx, facts, diagnoses, request.experiment_budget_s, report, cancel, skip)
        repair.reconcile(diagnoses)
    applicable.apply(ctx, facts, diagnoses, outcomes)
    diagnoses = [_with_tensor(ctx, d) for d in _rank(diagnoses)]

    heatmap_ref, error_map = None, None
    outputs = [
        o
        for o in ctx.outputs
        if o.seed == ctx.primary_seed and o.actual is not None and o.actual.shape == o.golden.shape
    ]
    image = request.heatmap if request.heatmap is not None else heatmap.readable_image()
    if outputs:
        report(0.85, "heatmap")
        target = next((o for o in outputs if o.failed), outputs[0])
        tile = next(
            (
                d.location.tile[0]
                for d in diagnoses
                if d.output == target.name and d.seed == target.seed and d.location and d.location.tile
            ),
            None,
        )
        png, error_map = _error_maps(target, tile, image)
        if png is not None:
            services().runs.save_file(request.run_id, HEATMAP_NAME, png)
            heatmap_ref = heatmap_uri(request.run_id)

    credible = [d for d in diagnoses if d.tested != "refuted"]
    if credible:
        primary = credible[0]
        summary = f"{primary.pattern}: {primary.summary}{_where(primary)}" + (
            " [confirmed by experiment]" if primary.tested == "confirmed" else ""
        )
        fixes = ", ".join(primary.suggested_fixes) or "a fix"
        next_step = f"call suggest_fix(run_id='{request.run_id}', verify=true) for {fixes}"
    elif _without_tensors(ctx):
        summary = "fail: the run kept no tensors (store_tensors=false), so the failure cannot be diagnosed"
        next_step = (
            "re-run run_accuracy with store_tensors=true (and the same seeds) and call explain_failure on that run"
        )
    elif ctx.result.verdict == "pass":
        summary = "no failure pattern: the run passed and shows no latent defect"
        next_step = "nothing to fix; optimise for speed"
    else:
        differs = _where_it_differs(ctx)
        summary = (
            f"{ctx.result.verdict}: no known failure pattern matched{'; ' + differs if differs else ''}; see the "
            "per-seed comparator results"
        )
        searched = next((o for o in outcomes if o.id == repair.ID and o.edits_tried is not None), None)
        next_step = (
            f"call suggest_fix(run_id='{request.run_id}', verify=true): its repair search goes on from the "
            f"{searched.edits_tried} edits re-run here ({searched.finding})"
            if searched is not None and repair.BUDGET_ENDED in searched.finding
            else "inspect the worst elements of the run's seeds"
        )
    report(1.0, "done")
    result = ExplainResult(
        run_id=request.run_id,
        verdict=ctx.result.verdict,
        summary=summary,
        diagnoses=diagnoses,
        fingerprint=ctx.fingerprint,
        experiments=outcomes,
        compute_num=ctx.compute_num,
        heatmap=heatmap_ref,
        error_map=error_map,
        timings=Timings(total_s=time.perf_counter() - started),
        next_step=next_step,
    )
    if request.experiments and outcomes:
        _keep(result, request, cancel)
    return result
