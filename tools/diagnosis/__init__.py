"""explain_failure: which failure pattern a stored run shows, with numeric evidence and a heatmap."""

from __future__ import annotations

import time

import torch

from tools import thresholds as T
from tools.diagnosis import context, detectors, fingerprint, heatmap, source
from tools.models.diagnosis import Diagnosis, ExplainRequest, ExplainResult
from tools.models.task import Timings
from tools.services import progress_reporter, services

HEATMAP_NAME = "heatmap.png"


def heatmap_uri(run_id: str) -> str:
    return f"kernel-eval://runs/{run_id}/heatmap.png"


def _rank(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """Highest confidence first; one diagnosis per (pattern, output), the most confident."""
    best: dict[tuple, Diagnosis] = {}
    for d in diagnoses:
        key = (d.pattern, d.output)
        if key not in best or d.confidence > best[key].confidence:
            best[key] = d
    return sorted(best.values(), key=lambda d: -d.confidence)


def _heatmap(target: context.OutputData, tile: int | None) -> bytes | None:
    if target.actual is None or target.golden is None or target.actual.shape != target.golden.shape or target.actual.numel() == 0:
        return None
    a, g = target.a, target.g
    rel = (a - g).abs() / (g.abs() + T.RELATIVE_ERROR_EPS)
    nan_mismatch = torch.isnan(a) ^ torch.isnan(g)
    unwritten = target.unwritten()
    return heatmap.render(target.as_2d(rel), target.as_2d(nan_mismatch),
                          target.as_2d(unwritten) if unwritten.numel() else unwritten, tile)


def explain_failure(request: ExplainRequest, progress=None, cancel=None) -> ExplainResult:
    """Raises ToolInputError for an unknown run_id."""
    report = progress_reporter(progress)
    started = time.perf_counter()
    ctx = context.load(request.run_id)
    facts = source.analyze(ctx.source)
    report(0.2, "reading the run")
    found = detectors.from_verdict(ctx) + detectors.structural(ctx)

    # the outputs of the first failing seed (or of the first seed when the run passed)
    failing_seed = next((o.seed for o in ctx.outputs if o.failed), ctx.outputs[0].seed if ctx.outputs else None)
    outputs = [o for o in ctx.outputs if o.seed == failing_seed and o.actual is not None and o.golden is not None
               and o.actual.shape == o.golden.shape]
    prints = []
    if request.experiments and ctx.matmul and outputs and len(ctx.inputs) >= 2:
        report(0.4, "precision fingerprint: emulated goldens")
        floats = [t for t in ctx.inputs if isinstance(t, torch.Tensor) and t.is_floating_point()]
        first = next((o for o in ctx.outputs if o.seed == ctx.result.seeds[0].seed), None) if ctx.result.seeds else None
        if first is not None and first.actual is not None and first.actual.is_floating_point():
            prints = fingerprint.matmul_models(floats[0], floats[1], first.actual, ctx.source)
    report(0.6, "pattern detectors")
    for o in outputs:
        found += detectors.unwritten(ctx, o, facts)
        found += detectors.all_zero(ctx, o, facts)
        found += detectors.nan_inf(ctx, o, facts)
        if o.failed:
            found += detectors.layout(ctx, o)
        if not any(d.output == o.name and d.pattern in ("boundary_mask_error", "unwritten_output", "all_zero_output", "layout_mismatch")
                   for d in found):
            found += detectors.precision(ctx, o, facts, prints if o.seed == (ctx.result.seeds[0].seed if ctx.result.seeds else None) else [])
    found += detectors.nondeterminism(ctx, facts)
    diagnoses = _rank(found)

    heatmap_ref = None
    if request.heatmap and outputs:
        report(0.85, "heatmap")
        target = next((o for o in outputs if o.failed), outputs[0])
        tile = next((d.location.tile[0] for d in diagnoses
                     if d.output == target.name and d.seed == target.seed and d.location and d.location.tile), None)
        png = _heatmap(target, tile)
        if png is not None:
            services().runs.save_file(request.run_id, HEATMAP_NAME, png)
            heatmap_ref = heatmap_uri(request.run_id)

    if diagnoses:
        primary = diagnoses[0]
        summary = f"{primary.pattern}: {primary.summary}"
        next_step = f"call suggest_fix(run_id='{request.run_id}', verify=true) for {', '.join(primary.suggested_fixes) or 'a fix'}"
    elif ctx.result.verdict == "pass":
        summary = "no failure pattern: the run passed and shows no latent defect"
        next_step = "nothing to fix; optimise for speed"
    else:
        summary = f"{ctx.result.verdict}: no known failure pattern matched; see the per-seed comparator results"
        next_step = "inspect the worst elements of the run's seeds"
    report(1.0, "done")
    return ExplainResult(
        run_id=request.run_id, verdict=ctx.result.verdict, summary=summary, diagnoses=diagnoses, fingerprint=prints,
        compute_num=ctx.compute_num, heatmap=heatmap_ref, timings=Timings(total_s=time.perf_counter() - started),
        next_step=next_step,
    )
