"""suggest_fix: the fixes for a stored run's failure, as patches to the candidate, optionally verified."""

from __future__ import annotations

import difflib
import time

from sandbox import backends
from tools import thresholds as T
from tools.diagnosis import context, explain_failure, repair, replay, shape_failure, stored_explanation
from tools.diagnosis.trials import TrialRunner
from tools.errors import ServerFault, ToolInputError
from tools.models.accuracy import RunAccuracyResult, StoredTask
from tools.models.diagnosis import (
    Diagnosis,
    ExplainRequest,
    ExplainResult,
    FixId,
    FixRequest,
    FixResult,
    FixSuggestion,
    Location,
    Verification,
)
from tools.models.task import Timings
from tools.repair import reach, search
from tools.repair.edits import Edit
from tools.repair.registry import FIXES
from tools.repair.source import analyze as analyze_source
from tools.services import progress_reporter, services


def _diff(before: str, after: str, name: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=f"a/{name}", tofile=f"b/{name}"
        )
    )


def _changed_line(before: str, after: str, name: str, edited: str = "") -> Location | None:
    """The one line of `before` a patch rewrites, when it rewrites one line only (`edited`: the code it changes
    there, where known)."""
    old, new = before.splitlines(), after.splitlines()
    changes = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] != "replace" or changes[0][2] - changes[0][1] != 1:
        return None
    return reach.with_tensor(Location.at_line(name, changes[0][1] + 1, before), before, edited, after)


def _metrics(result) -> dict:
    worst = None
    for seed in result.seeds:
        for output in seed.outputs:
            if worst is None or (not output.passed and worst.passed):
                worst = output
    metrics = {"mere": worst.mere, "mare": worst.mare, "nan_mismatches": worst.nan_mismatch_count} if worst else {}
    reads = result.checks.out_of_bounds_reads
    if reads:  # per seed the same loads: count the first seed's
        first = reads[0].seed
        metrics["out_of_bounds_reads"] = sum(r.elements_before + r.elements_after for r in reads if r.seed == first)
    elif reads is not None:
        metrics["out_of_bounds_reads"] = 0
    return metrics


def _verify(
    task: StoredTask, candidate: str, before: dict, cancel, **overrides
) -> tuple[Verification, RunAccuracyResult]:
    from tools.accuracy import run_accuracy

    result = run_accuracy(task.rerun(candidate, **overrides), cancel=cancel)
    verification = Verification(
        verdict=result.verdict, summary=result.summary, run_id=result.run_id, before=before, after=_metrics(result)
    )
    return verification, result


def _latent_defect_gone(verification: Verification, diagnosis: Diagnosis, result: RunAccuracyResult) -> bool:
    """A fix for a defect the passing run already showed (a latent out-of-bounds read) is verified
    when the patched run no longer shows it, not by passing again."""
    if not diagnosis.evidence.get("out_of_bounds_reads"):
        return True
    reads = result.checks.out_of_bounds_reads
    if reads:
        verification.summary += f"; the patched candidate still reads past the ends of {reads[0].tensor}"
        return False
    verification.summary += "; no load reads outside the tensors any more"
    return True


def _atomic_free(verification: Verification, patched: str, backend: str) -> bool:
    """A deterministic reduction is verified by correctness plus no atomics left in the source; on
    the cpu interpreter (programs run in one fixed order) re-runs cannot show determinism itself."""
    free = not analyze_source(patched).atomic_add
    note = "the patched source launches no tl.atomic_add" if free else "tl.atomic_add is still launched"
    if backends.by_name(backend).interpreter:
        note += " (cpu interpreter: programs run in a fixed order, so determinism itself needs a GPU re-run)"
    verification.summary = f"{verification.summary}; {note}"
    return free


#: With verify: how many fixes beyond max_fixes are tried while none of the first has verified.
EXTRA_FIX_TRIALS = 3


def _suggestion(
    fix: FixId,
    diagnosis: Diagnosis,
    source: str,
    name: str,
    task: StoredTask,
    before: dict,
    verify: bool,
    cancel,
    report,
    index: int,
    count: int,
) -> FixSuggestion:
    """One fix for one diagnosis: its patch, and with verify its re-run."""
    entry = FIXES[fix]
    suggestion = FixSuggestion(
        fix=fix,
        title=entry.title,
        for_pattern=diagnosis.pattern,
        why=f"{diagnosis.pattern}: {diagnosis.summary}",
        guidance=entry.guidance(),
    )
    patched = entry.patch(source, diagnosis.evidence) if source else None
    if patched is not None:
        suggestion.patch = _diff(source, patched, name)
        suggestion.patched_source = patched
        edited = diagnosis.evidence.get("edit_before")  # the code the repair search changed, where it found this
        suggestion.location = _changed_line(source, patched, name, edited if isinstance(edited, str) else "")
    if not verify:
        return suggestion
    report(0.2 + 0.7 * index / max(1, count), f"verifying {fix}")
    rerun = None
    try:
        if patched is not None:
            suggestion.verification, rerun = _verify(task, patched, before, cancel)
        elif fix == "relax_threshold":
            suggestion.verification, rerun = _verify(task, source, before, cancel, normal_range="cpu_relative")
    except (ToolInputError, ServerFault) as exc:  # the fix stays suggested, its verification says why not
        suggestion.verification = Verification(verdict="error", summary=str(exc), run_id="", before=before)
    if suggestion.verification is not None:
        suggestion.verified = suggestion.verification.verdict == "pass"
        if rerun is not None and suggestion.verified:
            suggestion.verified = _latent_defect_gone(suggestion.verification, diagnosis, rerun)
        if fix == "deterministic_reduction" and patched is not None:
            suggestion.verified &= _atomic_free(suggestion.verification, patched, task.backend_resolved)
    return suggestion


def _searched_already(explained: ExplainResult) -> int:
    """How many planned edits explain_failure's repair_search re-ran (0: it did not run)."""
    return next((o.edits_tried or 0 for o in explained.experiments if o.id == "repair_search"), 0)


def _repair(
    request: FixRequest,
    explained: ExplainResult,
    task: StoredTask,
    name: str,
    before: dict,
    cancel,
    report,
    spent_s: float,
) -> FixSuggestion | None:
    """The repair search's first edit that passes every seed of the run, as a verified suggestion; it goes on
    from the edits explain_failure's repair_search re-ran. Its budget counts from the call's start (`spent_s`
    ago: the fixes verified before it), down to T.REPAIR_SEARCH_MIN_SHARE of it."""
    ctx = context.load(request.run_id)
    if not ctx.tensors_kept or not ctx.source:
        return None
    interpreted = backends.by_name(task.backend_resolved).interpreter
    budget = request.search_budget_s or T.REPAIR_SEARCH_BUDGET_S["interpreter" if interpreted else "compiled"]
    runner = TrialRunner(ctx, max(budget - spent_s, budget * T.REPAIR_SEARCH_MIN_SHARE), cancel)
    accepted: dict[str, Verification] = {}

    def accept(edit: Edit) -> bool:
        report(0.9, f"repair search: verifying {edit.describe()}")
        try:
            verification, rerun = _verify(task, edit.source, before, cancel)
        except (ToolInputError, ServerFault):
            return False
        if verification.verdict == "pass" and not rerun.checks.out_of_bounds_reads:
            accepted[edit.source] = verification
            return True
        return False

    searched = repair.search_edits(
        runner,
        runner.deadline,
        ctx.source,
        search.located_lines(explained.diagnoses),
        accept=accept,
        skip=_searched_already(explained),
        report=lambda message: report(0.8, message),
        scaled_output=search.scaled(explained.diagnoses),
    )
    if searched.found is None:
        return None
    edit = searched.found
    primary = next((d for d in explained.diagnoses if d.tested != "refuted"), None)
    return FixSuggestion(
        fix=edit.fix,  # type: ignore[arg-type] - a fix id of the registry (tools/repair/edits.py)
        title=f"{FIXES[edit.fix].title}: {edit.describe()}",
        for_pattern=primary.pattern if primary is not None else "formula_error",
        why=f"repair search: of {searched.candidates} single-site edits ({searched.tried} re-run, located lines "
        f"first), changing {edit.describe()} makes the candidate pass on every seed of the run",
        guidance=FIXES[edit.fix].guidance(),
        patch=_diff(ctx.source, edit.source, name),
        patched_source=edit.source,
        verified=True,
        verification=accepted[edit.source],
        location=_changed_line(ctx.source, edit.source, name, edit.before),
    )


def _next_step(request: FixRequest, fixes: list[FixSuggestion], explained: ExplainResult) -> str:
    """'apply' only for a patch that passed; otherwise what the evidence shows and what to try."""
    if any(f.verified for f in fixes):
        return "apply the verified patch (patched_source) and continue"
    if not fixes and explained.verdict == "pass":
        return "nothing to fix"
    if replay.not_reproduced(explained.experiments):
        return (
            "no patch can be verified: the unchanged candidate passes when re-run (explain_failure's replay). Run "
            "run_accuracy again on the same seeds; a verdict that changes is nondeterminism to remove first (a race "
            "between programs, a read of memory nothing wrote)"
        )
    patched = [f for f in fixes if f.patch]
    if patched and not request.verify:
        return (
            "call suggest_fix with verify=true: it re-runs each patch (and searches one-line edits where none "
            "passes); or apply the top patch yourself and call run_accuracy"
        )
    located = next((d.location for d in explained.diagnoses if d.location is not None and d.location.line), None)
    tried = (
        "no fix applies to this failure"
        if not fixes
        else "no patch passed its re-run and no single-site edit made the candidate pass"
        if request.verify
        else "no patch could be made"
    )
    where = f"look at {located.description}, " if located is not None else ""
    return (
        f"{tried}. The evidence: {explained.summary[:300]}. So {where}change the code by hand, then call run_accuracy"
    )


def suggest_fix(request: FixRequest, progress=None, cancel=None) -> FixResult:
    """Raises ToolInputError for an unknown run_id. A run its shape check failed (shapes_mode=require) is
    fixed on the failing size's run (the result's run_id), as explain_failure explains it."""
    failed, decided = shape_failure(request.run_id)
    if failed is not None and decided:
        return suggest_fix(request.model_copy(update={"run_id": failed.run_id}), progress, cancel)
    report = progress_reporter(progress)
    started = time.perf_counter()
    # the explanation an explain_failure call kept for this run (its experiments are what took time), else anew
    explained = stored_explanation(request.run_id) or explain_failure(
        ExplainRequest(run_id=request.run_id, heatmap=False)
    )
    store = services().runs
    task = store.stored_task(request.run_id)
    result = store.result(request.run_id)
    source = task.candidate
    name = task.candidate_name.split("/")[-1]
    before = _metrics(RunAccuracyResult.model_validate(result))

    chosen: list[tuple[FixId, Diagnosis]] = []
    for diagnosis in (d for d in explained.diagnoses if d.tested != "refuted"):  # an experiment ruled it out
        for fix in diagnosis.suggested_fixes:
            if fix not in [f for f, _ in chosen]:
                chosen.append((fix, diagnosis))
    # With verify, a failed verification lets the next fix in line be tried (up to EXTRA_FIX_TRIALS
    # beyond max_fixes): e.g. a confirmed out-of-bounds read whose cause is a swapped stride ranks the
    # mask fix first, and only the layout fix, further down, makes the candidate pass.
    # a re-run the unchanged candidate passes verifies nothing: the patches come back unverified
    verify = request.verify and not replay.not_reproduced(explained.experiments)
    budget = request.max_fixes + (EXTRA_FIX_TRIALS if verify else 0)
    fixes: list[FixSuggestion] = []
    for i, (fix, diagnosis) in enumerate(chosen[:budget]):
        if i >= request.max_fixes and any(f.verified for f in fixes):
            break
        fixes.append(_suggestion(fix, diagnosis, source, name, task, before, verify, cancel, report, i, budget))
    if (
        verify
        and request.search
        and explained.verdict == "fail"
        and not any(f.verified for f in fixes)
        and not repair.numeric_cause_shown(explained.diagnoses)
    ):
        spent = time.perf_counter() - started
        repaired = _repair(request, explained, task, name, before, cancel, report, spent)
        if repaired is not None:
            fixes.insert(0, repaired)
    fixes.sort(key=lambda f: (f.verified is not True, f.patch is None))
    fixes = fixes[: request.max_fixes]
    if not fixes:
        summary = "no fix to suggest: " + explained.summary
    else:
        top = fixes[0]
        state = (
            "verified: the patched candidate passes"
            if top.verified
            else f"not verified ({top.verification.verdict})"
            if top.verification
            else "patch ready"
            if top.patch
            else "guidance only"
        )
        summary = f"{top.fix} for {top.for_pattern} ({state})"
    next_step = _next_step(request, fixes, explained)
    report(1.0, "done")
    return FixResult(
        run_id=request.run_id,
        verdict=explained.verdict,
        summary=summary,
        fixes=fixes,
        timings=Timings(total_s=time.perf_counter() - started),
        next_step=next_step,
    )
