"""The access trace: which line reads which input elements for a wrong output, against what the reference needs.

Two sandbox jobs on the failing seed's own inputs: the reference, differentiated in float64, says
which elements of each floating input a sampled output element depends on (a nonzero derivative;
for an integer or bool input, the elements whose change alone changes it: sandbox.harness.perturb);
the candidate, traced on the Triton interpreter (sandbox.harness.access_trace), says which input
elements the program that stored that element read, per source line, through any workspace another
program stored. An element the reference needs that the writing program never read is proof that
the kernel reads the wrong place: the line that reads that input is where. The claim is made only
where it separates the outputs: most sampled wrong elements miss reads, almost no right one does.

Per lane too (tools.diagnosis.lanes): which dimension of a load's address is wrong, and the line that
computes that index; that also finds a load whose programs read all they need but whose lanes read the
wrong element of it.
"""

from __future__ import annotations

import re

import torch

from sandbox import reports, tensorio
from tools import thresholds as T
from tools.diagnosis import lanes, repair
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors import flat_index
from tools.diagnosis.experiments import Result, unexplained_output
from tools.diagnosis.registry import experiment
from tools.diagnosis.traced import TracedSample
from tools.diagnosis.trials import TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome, PatternId
from tools.repair import reach
from tools.repair.source import SourceFacts, assignment_line

ID = "access_trace"
QUESTION = (
    "does the program that stored a wrong output element read the input elements the reference computes it from? "
    "(the candidate's loads traced on the interpreter, per line and per lane, against the reference's float64 "
    "gradient, or its perturbation for integer inputs)"
)


def _typical_magnitude(t: torch.Tensor, default: float) -> float:
    """The median magnitude of the finite values of `t` (`default` where it has none)."""
    finite = t[torch.isfinite(t)]
    return float(finite.to(torch.float64).abs().median()) if finite.numel() else default


def _wrong_and_right(o: OutputData) -> tuple[torch.Tensor, torch.Tensor]:
    """Flat masks of clearly wrong elements (NaN where the golden is a number, never written, or off by more
    than T.ACCESS_WRONG_RELATIVE of the output's scale) and clearly right ones (within 1e-5 of it)."""
    a, g = o.a.reshape(-1), o.g.reshape(-1)
    finite = torch.isfinite(g)
    scale = _typical_magnitude(g, 0.0)
    tolerance = max(scale, float(torch.finfo(torch.float32).tiny))
    error = (a - g).abs()
    unwritten = o.unwritten().reshape(-1) if o.unwritten().numel() else torch.zeros_like(finite)
    relative = T.ACCESS_WRONG_RELATIVE["wide" if _wide_float(o.measured.dtype) else "narrow"]
    wrong = finite & ~unwritten & ((error > relative * (g.abs() + tolerance)) | torch.isnan(a))
    right = finite & (error <= 1e-5 * (g.abs() + tolerance))
    return wrong, right


def _wide_float(dtype: torch.dtype) -> bool:
    """A float of 32 bits or more: its rounding stays orders below T.ACCESS_WRONG_RELATIVE["wide"]."""
    return dtype.is_floating_point and torch.finfo(dtype).bits >= 32


def _spread(mask: torch.Tensor, count: int) -> list[int]:
    """Up to `count` positions of `mask`, spread evenly over them (first and last included)."""
    where = torch.nonzero(mask).reshape(-1)
    if where.numel() <= count:
        return where.tolist()
    picks = torch.linspace(0, where.numel() - 1, count).round().long()
    return where[picks].tolist()


def _progression(values: list[int]) -> str:
    """'63..69', 'every 24th from 9 to 153', or the first few values."""
    if not values:
        return "none"
    if len(values) == 1:
        return str(values[0])
    steps = {b - a for a, b in zip(values, values[1:], strict=False)}
    if len(steps) == 1:
        step = steps.pop()
        return f"{values[0]}..{values[-1]}" if step == 1 else f"every {_ordinal(step)} from {values[0]} to {values[-1]}"
    shown = ", ".join(str(v) for v in values[:6])
    return f"{shown}, ... ({len(values)} elements)" if len(values) > 6 else shown


def _elements(values: list[int], shape: tuple[int, ...]) -> str:
    """Flat element indices of an input as text: the progression, and the first few as indices."""
    text = _progression(values)
    if len(shape) > 1 and values:
        first = ", ".join(str(flat_index(v, shape)) for v in values[:3])
        text += f" (i.e. {first}{', ...' if len(values) > 3 else ''})"
    return text


def _samples(runner: TrialRunner, ctx: RunContext, target: OutputData):
    """(the target's traced samples, the loads' index names, the controls: right elements of the outputs that
    passed), or None where no element is clearly wrong, or why the trace did not run."""
    wrong, right = _wrong_and_right(target)
    position = _output_position(ctx, target)
    if position is None or not bool(wrong.any()):
        return None  # (each claim counts its own judged samples: ACCESS_MIN_JUDGED; where the wrong ones are
        # stored needs only that every one of them is sampled)
    picks = [(position, f, True) for f in _spread(wrong, T.ACCESS_WRONG_SAMPLES)]
    picks += [(position, f, False) for f in _spread(right, T.ACCESS_RIGHT_SAMPLES)]
    mine = len(picks)
    picks += _controls(ctx, target)
    jobs = runner.traced([[at, f] for at, f, _ in picks])
    if isinstance(jobs, str):
        return jobs
    ref, cand = jobs
    try:  # the reports of processes that ran the task's and the candidate's code
        ref_seeds = reports.parse(reports.ReferenceReport, ref.meta).seeds
        cand_seeds = reports.parse(reports.CandidateReport, cand.meta).seeds
    except reports.ReportError:
        ref_seeds = cand_seeds = []
    trace = cand_seeds[0].trace if cand_seeds else None
    if trace is None or len(trace.samples) != len(picks):
        return "the candidate's loads could not be traced"
    deps = (ref_seeds[0].dependencies if ref_seeds else None) or []
    if len(deps) != len(picks):  # no gradient (the reads are not judged); where NaN / Inf is made still is
        deps = [{}] * len(picks)
    values = {k: v for k, v in {**ref.values, **cand.values}.items() if isinstance(v, torch.Tensor)}
    names: lanes.IndexNames = {}
    for e in trace.index_names:
        names.setdefault((e.line, e.input), {})[e.dim] = e.names
    samples = [TracedSample(n, at, f, w, deps[n], trace.samples[n], values) for n, (at, f, w) in enumerate(picks)]
    return samples[:mine], names, samples[mine:]


def _controls(ctx: RunContext, target: OutputData) -> list[tuple[int, int, bool]]:
    """(position, flat, False) for up to T.ACCESS_CONTROL_SAMPLES right elements of each output of the target's
    seed that passed: stores of right values beside the target's."""
    picks = []
    for at, o in enumerate(o for o in ctx.outputs if o.seed == target.seed):
        if o.failed or o.actual is None or o.actual.shape != o.golden.shape or not o.golden.numel():
            continue
        picks += [(at, f, False) for f in _spread(_wrong_and_right(o)[1], T.ACCESS_CONTROL_SAMPLES)]
    return picks


def _output_position(ctx: RunContext, target: OutputData) -> int | None:
    names = [o.name for o in ctx.outputs if o.seed == target.seed]
    return names.index(target.name) if target.name in names else None


def _stops_short(needed: torch.Tensor, missing: torch.Tensor) -> bool:
    """The missing elements are the last of the needed ones (in memory order): what a loop bound or a mask that
    ends early leaves out."""
    kept = needed[~torch.isin(needed, missing)]
    return bool(missing.numel()) and (not kept.numel() or bool(missing.min() > kept.max()))


def _culprit_line(samples: list[TracedSample], index: int) -> int | None:
    """The line that reads input `index` the most elements the reference does not need for the wrong
    samples (a misaddressed load), else the line that reads it at all, else None."""
    extra: dict[int, float] = {}
    for s in samples:
        needed = s.needed.get(index)
        for line, read in s.reads.get(index, {}).items():
            if needed is not None and read.numel():
                share = float((~torch.isin(read, needed)).float().mean())
                extra[line] = max(extra.get(line, 0.0), share)
    if not extra:
        return None
    return max(sorted(extra), key=lambda line: extra[line])


def _finding(
    ctx: RunContext,
    established: PatternId | None,
    target: OutputData,
    samples: list[TracedSample],
    names: lanes.IndexNames,
) -> Diagnosis | None:
    """The first input whose reads separate wrong from right outputs, as a located diagnosis: of the logic
    pattern an earlier experiment or proof established (the trace says where, not which), else its own."""
    inputs = ctx.inputs_of(target.seed) or []
    for index, tensor in enumerate(inputs):
        if not isinstance(tensor, torch.Tensor):
            continue
        judged = [(s, s.missing(index)) for s in samples]
        judged = [(s, m) for s, m in judged if m is not None]
        wrong = [(s, m) for s, m in judged if s.wrong]
        right = [(s, m) for s, m in judged if not s.wrong]
        missing_wrong = [(s, m) for s, m in wrong if m.numel()]
        missing_right = sum(1 for _, m in right if m.numel())
        if len(wrong) < T.ACCESS_MIN_JUDGED or len(missing_wrong) < T.ACCESS_WRONG_SHARE * len(wrong):
            continue
        if missing_right > T.ACCESS_RIGHT_SHARE * max(len(right), 1):
            continue
        found = _diagnosis(ctx, established, target, index, tuple(tensor.shape), missing_wrong, len(wrong))
        return _with_wrong_index(ctx, found, target, samples, index, tuple(tensor.shape), names)
    return None


def _diagnosis(
    ctx: RunContext,
    established: PatternId | None,
    target: OutputData,
    index: int,
    shape: tuple[int, ...],
    missing: list[tuple[TracedSample, torch.Tensor]],
    judged: int,
) -> Diagnosis:
    line = _culprit_line([s for s, _ in missing], index)
    sample, lost = next(((s, m) for s, m in missing if line in s.reads.get(index, {})), missing[0])
    needed = sorted(int(v) for v in sample.needed[index].tolist())
    output_index = flat_index(sample.flat, tuple(target.measured.shape))
    short = False
    if line is None:  # the writing program never reads that input
        line = sample.store_line
        read_text = f"the program that stores it (line {line}) never reads input {index}"
        misaddressed = False
    else:
        read = sorted(int(v) for v in sample.reads[index][line].tolist())
        misaddressed = any(v not in set(needed) for v in read)
        read_text = f"line {line} reads input {index} elements {_elements(read, shape)}"
        short = not misaddressed and all(_stops_short(s.needed[index], m) for s, m in missing)
    needs = f"needs input {index} {list(shape)} elements {_elements(needed, shape)}"
    what = f"{lanes.output_name(target.name)}{output_index} {needs}; {read_text}"
    summary = (
        f"line {line} reads the wrong elements of input {index}: {what}"
        if misaddressed
        else f"{what}: it stops short, the last {lost.numel()} element(s) the reference needs never enter it (a loop "
        "bound or mask that ends early)"
        if short
        else f"{what}, so {lost.numel()} element(s) the reference needs never enter it"
    )
    own: PatternId = "layout_mismatch" if misaddressed else "boundary_mask_error" if short else "formula_error"
    location = ctx.line_location(line or 0, tensor=f"input {index}", access=what)
    location.indices = [output_index]
    return Diagnosis(
        pattern=established or own,
        confidence=T.FOUND_BY_EXPERIMENT_CONFIDENCE,
        seed=target.seed,
        output=target.name,
        summary=summary,
        evidence={
            "experiment": ID,
            "input": index,
            "line": line,
            "wrong_elements_missing_reads": f"{len(missing)}/{judged}",
        },
        location=location,
        suggested_fixes=["fix_layout" if misaddressed else "boundary_mask" if short else "fix_formula"],
        tested="confirmed",
        experiment=f"traced loads: {len(missing)} of {judged} sampled wrong elements miss input {index} reads"
        + ("" if ctx.result.backend is None or ctx.result.backend.interpreter else " (traced on the cpu interpreter)"),
    )


def _with_wrong_index(
    ctx: RunContext,
    found: Diagnosis,
    target: OutputData,
    samples: list[TracedSample],
    index: int,
    shape: tuple[int, ...],
    names: lanes.IndexNames,
) -> Diagnosis:
    """The diagnosis of a misaddressed load, with the dimension it gets wrong and the line that computes that
    dimension's index, where the lanes align."""
    line = found.evidence.get("line")
    if found.pattern != "layout_mismatch" or not isinstance(line, int | float):
        return found
    out_shape = tuple(target.measured.shape)
    slip = lanes.dimension_slip(samples, index, int(line), shape, out_shape) or lanes.coordinate_slip(
        samples, index, int(line), shape, out_shape
    )
    if slip is None:
        return found
    return lanes.located_index(ctx, found, lanes.wrong_index(ctx, slip, target, index, int(line), names), index)


def _lane_finding(
    ctx: RunContext,
    established: PatternId | None,
    target: OutputData,
    samples: list[TracedSample],
    names: lanes.IndexNames,
) -> Diagnosis | None:
    """Where every program read all that its outputs need (a whole row), a load whose lanes read, for the wrong
    sampled outputs, other elements than the reference computes them from (and the right ones' lanes the right
    ones): that load's address is wrong along the dimensions shown."""
    inputs = ctx.inputs_of(target.seed) or []
    for index, tensor in enumerate(inputs):
        if not isinstance(tensor, torch.Tensor):
            continue
        shape = tuple(tensor.shape)
        lines = sorted({line for s in samples for (i, line) in s.aligned if i == index})
        for line in lines:
            # a sample whose store is made without this load's value (a bar's low beside the load of its open) says
            # nothing of what the load's lanes should read
            stores = {int(s.store_line) for s in samples if s.store_line}
            unfed = {store for store in stores if reach.not_fed_by(ctx.source, line, store)}
            judged = [s for s in samples if not (s.store_line and int(s.store_line) in unfed)]
            slip = lanes.dimension_slip(judged, index, line, shape, tuple(target.measured.shape))
            if slip is None:
                continue
            wrong = lanes.wrong_index(ctx, slip, target, index, line, names)
            base = Diagnosis(
                pattern=established or "layout_mismatch",
                confidence=T.FOUND_BY_EXPERIMENT_CONFIDENCE,
                seed=target.seed,
                output=target.name,
                summary="",
                evidence={"experiment": ID, "input": index, "line": line},
                location=ctx.line_location(line, tensor=f"input {index}"),
                suggested_fixes=["fix_layout"],
                tested="confirmed",
                experiment=f"traced lanes: {len(slip.pairs)} sampled wrong elements were stored from another element "
                f"of input {index} than the reference's, read at line {line}",
            )
            return lanes.located_index(
                ctx, base, wrong, index, prefix=f"line {line} reads the wrong elements of input {index}: "
            )
    return None


def _over_read_finding(
    ctx: RunContext, runner: TrialRunner, established: PatternId | None, target: OutputData, samples: list
) -> Diagnosis | None:
    """A load that reads, for the wrong outputs, elements the reference does not use for them (and not for the
    right ones), shown by an intervention: changing only those elements changes the candidate's wrong outputs and
    not the reference's."""
    inputs = ctx.inputs_of(target.seed) or []
    for index, tensor in enumerate(inputs):
        usable = isinstance(tensor, torch.Tensor) and not tensor.is_complex()
        if not usable or tensor.dtype == torch.bool:  # a flag: no neighbouring value to change it to
            continue
        for line in sorted({line for s in samples for line in s.reads.get(index, {})}):
            over = lanes.over_read(samples, index, line, tuple(tensor.shape))
            if over is None:
                continue
            shown = _only_the_candidate_moves(runner, target, samples, index, line, over)
            if shown is not None:
                return _over_read_diagnosis(ctx, established, target, index, line, tuple(tensor.shape), over, shown)
    return None


def _only_the_candidate_moves(
    runner: TrialRunner, target: OutputData, samples: list, index: int, line: int, over: lanes.OverRead
) -> tuple[int, int] | None:
    """Re-run with the elements read beyond need changed (none that any sampled output needs): (how many of the
    over-reading wrong samples changed, of how many) where most did and no sampled golden moved, else None."""
    needed = [s.needed[index] for s in samples if s.needed.get(index) is not None]
    extra = torch.cat([e for _, e, _ in over.samples]).unique()
    if needed:
        extra = extra[~torch.isin(extra, torch.cat(needed))]
    if not extra.numel():
        return None

    def change(inputs: list) -> list:
        changed = inputs[index].contiguous().clone()
        flat = changed.reshape(-1)  # a view of `changed`: row-major, as the trace's element indices are
        if changed.is_floating_point():
            shift = max(1.0, 4.0 * _typical_magnitude(flat, 0.25))
            flat[extra] = (flat[extra].to(torch.float64) + shift).to(changed.dtype)
        else:
            flat[extra] = flat[extra] + 1
        changed = tensorio.with_layout_of(changed, inputs[index])  # a view stays the view the run gave
        return [*inputs[:index], changed, *inputs[index + 1 :]]

    trial = runner.run(f"input {index}: only the elements line {line} reads beyond need changed", inputs_change=change)
    actual, golden = trial.actual.get(target.name), trial.golden.get(target.name)
    if not trial.ok or actual is None or golden is None or actual.shape != target.measured.shape:
        return None
    flats = torch.tensor([s.flat for s, _, _ in over.samples])
    before_a, before_g = target.a.reshape(-1)[flats], target.g.reshape(-1)[flats]
    after_a, after_g = actual.reshape(-1)[flats].to(torch.float64), golden.reshape(-1)[flats].to(torch.float64)
    scale = _typical_magnitude(target.g, 1.0)
    if not bool(torch.isclose(after_g, before_g, rtol=1e-9, atol=1e-9 * scale, equal_nan=True).all()):
        return None  # the reference uses them after all (a zero derivative is not independence)
    moved = int((~torch.isclose(after_a, before_a, rtol=1e-3, atol=1e-3 * scale, equal_nan=True)).sum())
    return (moved, len(over.samples)) if moved >= T.ACCESS_WRONG_SHARE * len(over.samples) else None


def _over_read_diagnosis(
    ctx: RunContext,
    established: PatternId | None,
    target: OutputData,
    index: int,
    line: int,
    shape: tuple[int, ...],
    over: lanes.OverRead,
    shown: tuple[int, int],
) -> Diagnosis:
    sample, _, coords = over.samples[0]
    output_index = flat_index(sample.flat, tuple(target.measured.shape))
    read = "; ".join(
        f"dimension {d} at {_progression(extra)} where the reference uses {_progression(needed)}"
        for d, (needed, extra) in sorted(coords.items())
    )
    past = over.past_an_end()
    mask = _mask_of(ctx.source or "", line)
    mask_line = assignment_line(ctx.source or "", mask, line) if mask else None
    let_in = f"; its mask `{mask}` (line {mask_line}) lets them in" if mask_line is not None else ""
    what = (
        f"for {lanes.output_name(target.name)}{output_index} line {line} reads input {index} {list(shape)} along "
        f"{read}{let_in}"
    )
    moved, of = shown
    experiment = (
        f"changing only the elements of input {index} line {line} reads beyond what the reference uses changed "
        f"{moved} of {of} sampled wrong outputs and none of the reference's"
    )
    location = ctx.line_location(mask_line if past and mask_line is not None else line, tensor=f"input {index}")
    location.access = what
    location.indices = [output_index]
    return Diagnosis(
        pattern=established or ("boundary_mask_error" if past else "layout_mismatch"),
        confidence=T.FOUND_BY_EXPERIMENT_CONFIDENCE,
        seed=target.seed,
        output=target.name,
        summary=f"line {line} reads elements of input {index} the reference does not use: {what}",
        evidence={"experiment": ID, "input": index, "line": line, "over_read_dimensions": over.dims},
        location=location,
        suggested_fixes=["boundary_mask" if past else "fix_layout"],
        tested="confirmed",
        experiment=experiment,
    )


def _mask_of(source: str, line: int) -> str | None:
    """The variable a load at `line` passes as its mask (`mask=smask[:, None]` -> smask), None for none."""
    lines = source.splitlines()
    found = re.search(r"\bmask\s*=\s*\(?\s*([A-Za-z_]\w*)", lines[line - 1]) if 0 < line <= len(lines) else None
    return found.group(1) if found else None


def _nonfinite_origin(ctx: RunContext, target: OutputData, samples: list[TracedSample], diagnoses: list[Diagnosis]):
    """The line that first makes the Inf / NaN the wrong outputs hold (of finite operands, in the programs that
    stored them), as the located NaN / overflow diagnosis of this output: (diagnosis, finding), or None."""
    a, g = target.a.reshape(-1), target.g.reshape(-1)
    bad = [s for s in samples if s.wrong and not bool(torch.isfinite(a[s.flat])) and bool(torch.isfinite(g[s.flat]))]
    lines = [int(s.nonfinite["line"]) for s in bad if s.nonfinite and s.nonfinite.get("line")]
    line = _most_samples_line(lines, len(bad))
    if line is None:
        return None
    origin = next(s.nonfinite for s in bad if s.nonfinite and s.nonfinite.get("line") == line)
    kind = "NaN" if origin.get("makes") == "NaN" else "Inf"
    invalid = _invalid_operation(origin)
    mine = [d for d in diagnoses if d.output in (target.name, None) and d.tested != "refuted"]
    preferred = ("nan_mismatch", "inf_overflow") if kind == "NaN" or invalid else ("inf_overflow", "nan_mismatch")
    known = next((d for p in preferred for d in mine if d.pattern == p), None)
    if known is None:
        return None
    operands = ", ".join(f"{v:.3g}" for v in origin.get("operands", []))
    made = f"{origin.get('operation', '?')}({operands})"
    finding = (
        f"line {line} makes the first {kind} of finite operands ({made}) in the programs that stored "
        f"{lines.count(line)} of the {len(bad)} sampled wrong NaN / Inf outputs"
    )
    evidence = {**known.evidence, "nonfinite_line": line, "nonfinite_operation": made}
    if invalid:  # what the operation was; whether the guard belongs here or upstream, a repair at the line tells
        evidence["nonfinite_invalid"] = invalid
    located = Diagnosis.model_validate(
        known.model_dump()
        | {
            "summary": f"{known.summary}; {finding}" + (f" ({invalid})" if invalid else ""),
            "evidence": evidence,
            "location": ctx.line_location(line, f"{made} gives {kind}").model_dump(),
        }
    )
    return located, finding


def _most_samples_line(lines: list[int], judged: int) -> int | None:
    """The line most of `judged` sampled wrong outputs name (`lines`: one per sample that names one), where there are
    enough of them and at least ACCESS_WRONG_SHARE name it; else None."""
    if judged < T.ACCESS_MIN_JUDGED or not lines:
        return None
    line = max(sorted(set(lines)), key=lines.count)
    return line if lines.count(line) >= T.ACCESS_WRONG_SHARE * judged else None


def _wrap_origin(ctx: RunContext, target: OutputData, samples: list[TracedSample], diagnoses: list[Diagnosis]):
    """The line where the programs that stored the wrong outputs first wrapped a signed integer, as the located
    overflow diagnosis of outputs off by multiples of 2^bits (tools/diagnosis/detectors/integers.py): (diagnosis,
    finding), or None. A wrap the kernel means (a hash) is not told apart here: the repair at the line is."""
    known = next(
        (
            d
            for d in diagnoses
            if d.output in (target.name, None)
            and d.tested != "refuted"
            and d.pattern == "inf_overflow"
            and "wrapped_bits" in d.evidence
            and (d.location is None or d.location.line is None)
        ),
        None,
    )
    bad = [s for s in samples if s.wrong]
    lines = [int(s.wrap["line"]) for s in bad if s.wrap and s.wrap.get("line")]
    line = _most_samples_line(lines, len(bad))
    if known is None or line is None:
        return None
    origin = next(s.wrap for s in bad if s.wrap and s.wrap.get("line") == line)
    operands = ", ".join(f"{v:.0f}" for v in origin.get("operands", []))
    made = f"{origin.get('operation', '?')}({operands})"
    finding = (
        f"line {line} first wraps a signed integer ({made} does not fit its type) in the programs that stored "
        f"{lines.count(line)} of the {len(bad)} sampled wrong outputs"
    )
    located = Diagnosis.model_validate(
        known.model_dump()
        | {
            "summary": f"{known.summary}; {finding}",
            "evidence": {**known.evidence, "wrap_line": line, "wrap_operation": made},
            "location": ctx.line_location(line, f"{made} wraps").model_dump(),
        }
    )
    return located, finding


def _invalid_operation(origin: dict) -> str | None:
    """What makes a traced first Inf / NaN an invalid operation of finite operands rather than an overflow: a
    division by zero, a log of zero or of a negative, a root of a negative (None: an overflow, or unknown)."""
    operation, operands = str(origin.get("operation", "")), list(origin.get("operands", []))
    if "div" in operation and len(operands) >= 2 and operands[-1] == 0:
        return "a division by zero"
    if ("log" in operation or "sqrt" in operation) and operands and operands[0] <= 0:
        return f"{operation} of {operands[0]:.3g}"
    return "an invalid operation" if origin.get("makes") == "NaN" else None


def _established(diagnoses: list[Diagnosis], output: str) -> PatternId | None:
    """A specific logic cause of this output that a proof or an experiment already established (reads out of range,
    NaN from an input's margins, establish none: a wrong address shows them as well as a missing mask)."""
    return next(
        (
            d.pattern
            for d in diagnoses
            if d.pattern in ("layout_mismatch", "boundary_mask_error", "unwritten_output")
            and d.tested in ("proven", "confirmed")
            and d.output in (output, None)
            and not repair.out_of_range_only(d)
        ),
        None,
    )


def _target(ctx: RunContext, diagnoses: list[Diagnosis]) -> OutputData | None:
    target = unexplained_output(ctx, diagnoses)
    if target is None or target.measured.numel() == 0 or target.measured.is_complex():
        return None
    return target


@experiment(ID, QUESTION, tests=("layout_mismatch", "formula_error"), before="exact_inputs")
def access_trace(ctx: RunContext, runner: TrialRunner, facts: SourceFacts, diagnoses: list[Diagnosis]) -> Result | None:
    target = _target(ctx, diagnoses)
    if target is None:
        return None
    traced = _samples(runner, ctx, target)
    if traced is None:
        return None
    if isinstance(traced, str):
        return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=f"not traced: {traced}"))
    samples, names, controls = traced
    ctx.traced, ctx.traced_controls = samples, controls
    origin = _nonfinite_origin(ctx, target, samples, diagnoses) or _wrap_origin(ctx, target, samples, diagnoses)
    if origin is not None:
        located, finding = origin
        # where the first Inf / NaN is made, not why its operand is what it is (a log of a sum a dropped abs made
        # negative): the located diagnosis stays a hypothesis the later experiments may refute
        outcome = ExperimentOutcome(id=ID, question=QUESTION, finding=finding)
        return Result(outcome, [located])
    established = _established(diagnoses, target.name)
    found = (
        _finding(ctx, established, target, samples, names)
        or _lane_finding(ctx, established, target, samples, names)
        or _over_read_finding(ctx, runner, established, target, samples)
    )
    if found is None:
        compared = sum(1 for s in samples if s.judgeable and s.needed)
        finding = (
            f"the traced elements read what the reference needs ({compared} of {len(samples)} compared)"
            if compared
            else "nothing to compare: the reference's output has no gradient in a floating input, or the kernel's "
            "reads pass through memory the trace cannot follow"
        )
        stored = _wrong_store(samples + controls)
        if stored is None:
            return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding))
        line, text = stored
        line, text = _made_at(ctx, line, text)
        outcome = ExperimentOutcome(id=ID, question=QUESTION, finding=f"{finding}; {text}")
        return Result(outcome, _stored_at(ctx, target, diagnoses, line, text))
    outcome = ExperimentOutcome(id=ID, question=QUESTION, finding=found.experiment or "", confirms=[found.pattern])
    return Result(outcome, [found])


def _ordinal(n: int) -> str:
    """2 -> '2nd', 3 -> '3rd', 11 -> '11th', 24 -> '24th'."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _wrong_store(samples: list[TracedSample]) -> tuple[int, str] | None:
    """(line, what the trace shows) where every sampled wrong element was stored by one store line and some right
    ones by others: the value that line stores is wrong (or what it is computed from), the other stores' are not.
    A kernel with one store says nothing this way."""
    wrong = [s.store_line for s in samples if s.wrong]
    right = [s.store_line for s in samples if not s.wrong and s.store_line]
    line = wrong[0] if wrong and len(set(wrong)) == 1 else None
    if not line or not any(r != line for r in right):
        return None
    also = sum(1 for r in right if r == line)
    return line, (
        f"every sampled wrong element ({len(wrong)}) was stored by line {line}, "
        f"{len(right) - also} of the {len(right)} right ones by other lines: the value stored at line {line} is wrong"
    )


def _made_at(ctx: RunContext, store: int, text: str) -> tuple[int, str]:
    """Where the wrong value the store line stores is made: of the kernel's lines that feed it, those that feed no
    store of right elements (repair.differential_lines), where they are few; the one of them that is not the store
    is the location (several: the store stays it, and they are named)."""
    made = [n for n in repair.differential_lines(ctx) if n != store]
    if not made or len(made) > T.ACCESS_DIFFERENTIAL_MAX_LINES:
        return store, text
    named = _lines_text(made)
    feed = "feeds" if len(made) == 1 else "feed"
    text += (
        f"; of the lines line {store} is computed from, only {named} {feed} no store of right elements: the wrong "
        "value is made there"
    )
    return (made[0] if len(made) == 1 else store), text


def _lines_text(lines: list[int]) -> str:
    """'line 7', 'lines 7 and 9', 'lines 7, 9 and 12'."""
    if len(lines) == 1:
        return f"line {lines[0]}"
    return f"lines {', '.join(map(str, lines[:-1]))} and {lines[-1]}"


def _stored_at(
    ctx: RunContext, target: OutputData, diagnoses: list[Diagnosis], line: int, text: str
) -> list[Diagnosis]:
    """The line located (the store, or where its wrong value is made): on the logic diagnosis of this output that
    names no line where there is one (a formula error the output's values showed), else as a hypothesis of its
    own."""
    location = ctx.line_location(line, "makes or stores the wrong elements' values")
    for d in diagnoses:
        if (
            d.output in (target.name, None)
            and d.pattern in ("formula_error", "layout_mismatch")
            and (d.location is None or d.location.line is None)
            and d.tested != "refuted"
        ):
            # a region or elements the output's values showed stay beside the line
            shown = d.location.model_dump(include={"indices", "rows", "cols", "tile"}) if d.location else {}
            d.location, d.summary = location.model_copy(update=shown), f"{d.summary}; {text}"
            return []
    if any(d.output in (target.name, None) and d.tested != "refuted" for d in diagnoses):
        return []  # a precision or NaN hypothesis of this output: where its error is stored is no logic error
    return [
        Diagnosis(
            pattern="formula_error",
            confidence=T.STORED_WRONG_CONFIDENCE,
            seed=target.seed,
            output=target.name,
            summary=text,
            evidence={"experiment": ID, "store_line": line},
            location=location,
            suggested_fixes=["fix_formula"],
        )
    ]
