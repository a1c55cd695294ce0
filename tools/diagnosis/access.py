"""The access trace: which line reads which input elements for a wrong output, against what the reference needs.

Two sandbox jobs on the failing seed's own inputs: the reference, differentiated in float64, says
which elements of each floating input a sampled output element depends on (a nonzero derivative;
for an integer or bool input, the elements whose change alone changes it: sandbox.harness.perturb);
the candidate, traced on the Triton interpreter (sandbox.harness.access_trace), says which input
elements the program that stored that element read, per source line, through any workspace another
program stored. An element the reference needs that the writing program never read is proof that
the kernel reads the wrong place: the line that reads that input is where. The claim is made only
where it separates the outputs: most sampled wrong elements miss reads, almost no right one does.

Where the reference computes an output element from one element of that input (a copy, a gather, a
broadcast operand) and the store's lanes align with that load's, the trace also says which element
the storing lane read: the dimensions whose index differs from the one the reference reads, over the
sampled wrong elements (and on none of the right ones), are what the address gets wrong, and the
kernel variable that held that dimension's index at that load (the same on every load checked) names
the line that computes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tools import thresholds as T
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors import flat_index
from tools.diagnosis.experiments import Result
from tools.diagnosis.experiments import _target as first_failing
from tools.diagnosis.registry import experiment
from tools.diagnosis.trials import TrialRunner
from tools.models.diagnosis import Diagnosis, ExperimentOutcome, PatternId
from tools.repair.source import SourceFacts, assignment_line

ID = "access_trace"
QUESTION = (
    "does the program that stored a wrong output element read the input elements the reference computes it from? "
    "(the candidate's loads traced on the interpreter, per line and per lane, against the reference's float64 "
    "gradient, or its perturbation for integer inputs)"
)


def _wrong_and_right(o: OutputData) -> tuple[torch.Tensor, torch.Tensor]:
    """Flat masks of clearly wrong elements (NaN where the golden is a number, never written, or off by
    more than a percent of the output's scale) and clearly right ones (within 1e-5 of it)."""
    a, g = o.a.reshape(-1), o.g.reshape(-1)
    finite = torch.isfinite(g)
    scale = float(g[finite].abs().median()) if finite.any() else 0.0
    tolerance = max(scale, float(torch.finfo(torch.float32).tiny))
    error = (a - g).abs()
    unwritten = o.unwritten().reshape(-1) if o.unwritten().numel() else torch.zeros_like(finite)
    wrong = finite & ~unwritten & ((error > 1e-2 * (g.abs() + tolerance)) | torch.isnan(a))
    right = finite & (error <= 1e-5 * (g.abs() + tolerance))
    return wrong, right


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
        return f"{values[0]}..{values[-1]}" if step == 1 else f"every {step}th from {values[0]} to {values[-1]}"
    shown = ", ".join(str(v) for v in values[:6])
    return f"{shown}, ... ({len(values)} elements)" if len(values) > 6 else shown


def _elements(values: list[int], shape: tuple[int, ...]) -> str:
    """Flat element indices of an input as text: the progression, and the first few as indices."""
    text = _progression(values)
    if len(shape) > 1 and values:
        first = ", ".join(str(flat_index(v, shape)) for v in values[:3])
        text += f" (i.e. {first}{', ...' if len(values) > 3 else ''})"
    return text


class _Sample:
    def __init__(self, number: int, position: int, flat: int, wrong: bool, dep: dict, trace: dict, values: dict):
        self.number, self.position, self.flat, self.wrong = number, position, flat, wrong
        self.store_line = trace.get("store_line")
        #: where the writing program (or one it read from) first made Inf / NaN of finite operands
        self.nonfinite: dict | None = trace.get("nonfinite") if isinstance(trace.get("nonfinite"), dict) else None
        self.judgeable = dep.get("status") == "ok" and trace.get("status") == "ok"
        self.needed: dict[int, torch.Tensor] = {}  # input -> the elements the reference's gradient needs (all of them)
        for e in dep.get("inputs", []):
            t = values.get(e["key"])
            if t is not None and e["count"] <= t.numel():
                self.needed[e["input"]] = t
        self.reads: dict[int, dict[int, torch.Tensor]] = {}  # input -> line -> elements
        #: (input, load line) -> the element the lane that stored this one read at that line
        self.aligned: dict[tuple[int, int], int] = {
            (int(e["input"]), int(e["line"])): int(e["element"]) for e in trace.get("aligned") or []
        }
        self.capped: set[int] = set()
        for e in trace.get("reads", []):
            t = values.get(e["key"])
            if t is None or e["count"] > t.numel():
                self.capped.add(e["input"])
                continue
            self.reads.setdefault(e["input"], {})[e["line"]] = t

    def missing(self, index: int) -> torch.Tensor | None:
        """The needed elements of input `index` the writing program did not read (None: cannot tell)."""
        needed = self.needed.get(index)
        if not self.judgeable or needed is None or needed.numel() == 0 or index in self.capped:
            return None
        read = self.reads.get(index, {})
        everything = torch.cat(list(read.values())) if read else torch.zeros(0, dtype=torch.int64)
        return needed[~torch.isin(needed, everything)]


#: (load line, input) -> dimension -> the kernel variables that held its index at that load
IndexNames = dict[tuple[int, int], dict[int, list[str]]]


def _samples(runner: TrialRunner, ctx: RunContext, target: OutputData):
    wrong, right = _wrong_and_right(target)
    position = _output_position(ctx, target)
    if position is None or int(wrong.sum()) < T.ACCESS_MIN_JUDGED:
        return None
    picks = [(f, True) for f in _spread(wrong, T.ACCESS_WRONG_SAMPLES)] + [
        (f, False) for f in _spread(right, T.ACCESS_RIGHT_SAMPLES)
    ]
    jobs = runner.traced([[position, f] for f, _ in picks])
    if isinstance(jobs, str):
        return jobs
    ref, cand = jobs
    deps = _seed_meta(ref.meta).get("dependencies") or []
    traces = (_seed_meta(cand.meta).get("trace") or {}).get("samples") or []
    if len(traces) != len(picks):
        return "the candidate's loads could not be traced"
    if len(deps) != len(picks):  # no gradient (the reads are not judged); where NaN / Inf is made still is
        deps = [{}] * len(picks)
    values = {k: v for k, v in {**ref.values, **cand.values}.items() if isinstance(v, torch.Tensor)}
    names: IndexNames = {}
    for e in (_seed_meta(cand.meta).get("trace") or {}).get("index_names") or []:
        names.setdefault((int(e["line"]), int(e["input"])), {})[int(e["dim"])] = [str(n) for n in e["names"]]
    return [_Sample(n, position, f, w, deps[n], traces[n], values) for n, (f, w) in enumerate(picks)], names


def _seed_meta(meta) -> dict:
    seeds = (meta or {}).get("seeds") or [{}]
    return seeds[0] if isinstance(seeds[0], dict) else {}


def _output_position(ctx: RunContext, target: OutputData) -> int | None:
    names = [o.name for o in ctx.outputs if o.seed == target.seed]
    return names.index(target.name) if target.name in names else None


def _stops_short(needed: torch.Tensor, missing: torch.Tensor) -> bool:
    """The missing elements are the last of the needed ones (in memory order): what a loop bound or a mask that
    ends early leaves out."""
    kept = needed[~torch.isin(needed, missing)]
    return bool(missing.numel()) and (not kept.numel() or bool(missing.min() > kept.max()))


def _culprit_line(samples: list[_Sample], index: int) -> int | None:
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
    ctx: RunContext, established: PatternId | None, target: OutputData, samples: list[_Sample], names: IndexNames
) -> Diagnosis | None:
    """The first input whose reads separate wrong from right outputs, as a located diagnosis: of the logic
    pattern an earlier experiment or proof established (the trace says where, not which), else its own."""
    inputs = ctx.inputs_of(target.seed) or []
    for index, tensor in enumerate(inputs):
        if not isinstance(tensor, torch.Tensor) or not tensor.is_contiguous():
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
    missing: list[tuple[_Sample, torch.Tensor]],
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
    what = f"{_output_name(target.name)}{output_index} {needs}; {read_text}"
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


@dataclass(frozen=True)
class _Slip:
    """Which dimensions of an input a load indexes wrongly: per sampled wrong element (whose reference reads one
    element of it, aligned with the load's lane) the index the reference reads and the one the lane read."""

    dims: list[int]
    pairs: list[tuple[_Sample, list[int], list[int]]]
    outputs: list[list[int]]  # per pair, the output element's multi-index
    sizes: list[int]  # the input's and the output's sizes (moduli an index may wrap at)


def _dimension_slip(
    samples: list[_Sample], index: int, line: int, shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> _Slip | None:
    """The dimensions the load at `line` gets wrong, where the lanes align: on the wrong samples the element read
    differs from the one the reference needs, on the right ones it is that one."""
    wrong, right_agree, right_differ = [], 0, 0
    for s in samples:
        expected, read = _expected_read(s, index, line), s.aligned.get((index, line))
        if expected is None or read is None:
            continue
        want, got = flat_index(expected, shape), flat_index(read, shape)
        if s.wrong:
            wrong.append((s, want, got))
        else:
            right_agree += want == got
            right_differ += want != got
    if len(wrong) < T.ACCESS_MIN_JUDGED or right_differ > T.ACCESS_RIGHT_SHARE * max(right_agree + right_differ, 1):
        return None
    differ = [p for p in wrong if p[1] != p[2]]
    if len(differ) < T.ACCESS_WRONG_SHARE * len(wrong):
        return None
    dims = [
        d for d in range(len(shape)) if sum(w[d] != g[d] for _, w, g in differ) >= T.ACCESS_WRONG_SHARE * len(differ)
    ]
    outputs = [flat_index(p[0].flat, out_shape) for p in differ]
    return _Slip(dims, differ, outputs, sorted({*shape, *out_shape})) if dims else None


def _expected_read(sample: _Sample, index: int, line: int) -> int | None:
    """The element of input `index` the lane that stored this sample should have read at `line`: the one the
    reference needs, or of several, the one no other load line of that input read for this lane (None: not
    told)."""
    needed = sample.needed.get(index)
    if not sample.judgeable or needed is None or not 0 < needed.numel() <= T.ACCESS_ALIGNED_MAX_NEEDED:
        return None
    wanted = {int(v) for v in needed.tolist()}
    if len(wanted) == 1:
        return next(iter(wanted))
    others = {e for (i, other), e in sample.aligned.items() if i == index and other != line}
    if sample.aligned.get((index, line)) in wanted:
        return sample.aligned[(index, line)]
    left = wanted - others
    return next(iter(left)) if len(left) == 1 else None


def _relation(slip: _Slip, dim: int) -> str:
    """How the index read along `dim` relates to the reference's: a constant offset, another dimension's
    index, one value, else a few of the pairs (unexplained)."""
    pairs = [(w[dim], g[dim]) for _, w, g in slip.pairs]
    offsets = {g - w for w, g in pairs}
    if len(offsets) == 1:
        return f"{offsets.pop():+d} from the reference's index"
    other = next(
        (e for e in range(len(slip.pairs[0][1])) if e != dim and all(g[dim] == w[e] for _, w, g in slip.pairs)), None
    )
    if other is not None:
        return f"the reference's index of dimension {other}"
    if len({g for _, g in pairs}) == 1:
        return f"always {pairs[0][1]}"
    scale = _scale(pairs)
    if scale is not None:
        return f"about {scale:.3g} x the reference's index (a size or scale slip)"
    read = _of_output(slip, [g for _, g in pairs])
    if read is not None:
        wanted = _of_output(slip, [w for w, _ in pairs])
        return f"{read}{f', the reference {wanted}' if wanted else ''}"
    shown = ", ".join(f"{g} for {w}" for w, g in pairs[:4])
    return f"unexplained ({shown}, ...)" if len(pairs) > 4 else f"unexplained ({shown})"


def _of_output(slip: _Slip, values: list[int]) -> str | None:
    """`values` as the output element's index along one dimension plus a small constant, wrapped at a size
    of the input or the output or not at all ('the output's index 1 + 1 modulo 37')."""
    for dim in range(len(slip.outputs[0])):
        coordinate = [o[dim] for o in slip.outputs]
        for shift in (0, 1, -1, 2, -2):
            shifted = [c + shift for c in coordinate]
            term = f"the output's index {dim}" + (f" {'+' if shift > 0 else '-'} {abs(shift)}" if shift else "")
            if shifted == values:
                return term
            modulus = next((m for m in slip.sizes if m > 1 and [v % m for v in shifted] == values), None)
            if modulus is not None and any(v >= modulus for v in shifted):
                return f"({term}) modulo {modulus}"
    return None


def _scale(pairs: list[tuple[int, int]]) -> float | None:
    """r where every index read is the reference's times r, rounded down or up (None: no such r, or r = 1)."""
    spread = [(w, g) for w, g in pairs if w > 0]
    if len(spread) < 2 or len({w for w, _ in spread}) < 2:
        return None
    r = sum(g * w for w, g in spread) / sum(w * w for w, _ in spread)
    if abs(r - 1) < 1e-3 or any(abs(g - r * w) > 1 for w, g in spread):
        return None
    return r


@dataclass(frozen=True)
class _WrongIndex:
    """What the lanes of a misaddressed load say: the text, the line computing the wrong index (None: no variable
    holds it) and the output element it is shown on."""

    text: str
    index_line: int | None
    output_index: list[int]
    dims: list[int]


def _wrong_index(
    ctx: RunContext, slip: _Slip, target: OutputData, index: int, line: int, names: IndexNames
) -> _WrongIndex:
    sample, want, got = slip.pairs[0]
    texts, computed = [], []
    for dim in slip.dims:
        held = names.get((line, index), {}).get(dim, [])
        assigned = [(n, a) for n in held if (a := assignment_line(ctx.source or "", n, line)) is not None]
        where = (
            f"`{assigned[0][0]}` (line {assigned[0][1]}) holds it"
            if assigned
            else f"`{held[0]}` holds it"
            if held
            else f"no variable holds it (the address arithmetic of line {line})"
        )
        texts.append(
            f"dimension {dim}: read {got[dim]} where the reference reads {want[dim]}, {_relation(slip, dim)}; {where}"
        )
        computed += [a for _, a in assigned[:1]]
    output_index = flat_index(sample.flat, tuple(target.measured.shape))
    text = (
        f"for {_output_name(target.name)}{output_index} line {line} reads input {index}{got}, the reference reads "
        f"input {index}{want} ({len(slip.pairs)} sampled wrong elements read another element): " + "; ".join(texts)
    )
    return _WrongIndex(text, computed[0] if computed else None, output_index, slip.dims)


def _located_index(ctx: RunContext, found: Diagnosis, wrong: _WrongIndex, index: int, prefix: str = "") -> Diagnosis:
    """`found` at the line that computes the wrong index (where one does), with what the lanes showed."""
    location = (
        ctx.line_location(wrong.index_line, tensor=f"input {index}", access=wrong.text)
        if wrong.index_line is not None
        else found.location
    )
    if location is not None:
        location.indices = [wrong.output_index]
    evidence = {
        **found.evidence,
        "wrong_dimensions": wrong.dims,
        **({"index_line": wrong.index_line} if wrong.index_line is not None else {}),
    }
    summary = f"{found.summary}; {wrong.text}" if found.summary else wrong.text
    return Diagnosis.model_validate(
        found.model_dump() | {"summary": prefix + summary, "location": location, "evidence": evidence}
    )


def _with_wrong_index(
    ctx: RunContext,
    found: Diagnosis,
    target: OutputData,
    samples: list[_Sample],
    index: int,
    shape: tuple[int, ...],
    names: IndexNames,
) -> Diagnosis:
    """The diagnosis of a misaddressed load, with the dimension it gets wrong and the line that computes that
    dimension's index, where the lanes align."""
    line = found.evidence.get("line")
    if found.pattern != "layout_mismatch" or not isinstance(line, int | float):
        return found
    slip = _dimension_slip(samples, index, int(line), shape, tuple(target.measured.shape))
    if slip is None:
        return found
    return _located_index(ctx, found, _wrong_index(ctx, slip, target, index, int(line), names), index)


def _lane_finding(
    ctx: RunContext, established: PatternId | None, target: OutputData, samples: list[_Sample], names: IndexNames
) -> Diagnosis | None:
    """Where every program read all that its outputs need (a whole row), a load whose lanes read, for the wrong
    sampled outputs, other elements than the reference computes them from (and the right ones' lanes the right
    ones): that load's address is wrong along the dimensions shown."""
    inputs = ctx.inputs_of(target.seed) or []
    for index, tensor in enumerate(inputs):
        if not isinstance(tensor, torch.Tensor) or not tensor.is_contiguous():
            continue
        shape = tuple(tensor.shape)
        lines = sorted({line for s in samples for (i, line) in s.aligned if i == index})
        for line in lines:
            slip = _dimension_slip(samples, index, line, shape, tuple(target.measured.shape))
            if slip is None:
                continue
            wrong = _wrong_index(ctx, slip, target, index, line, names)
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
            return _located_index(
                ctx, base, wrong, index, prefix=f"line {line} reads the wrong elements of input {index}: "
            )
    return None


def _nonfinite_origin(ctx: RunContext, target: OutputData, samples: list[_Sample], diagnoses: list[Diagnosis]):
    """The line that first makes the Inf / NaN the wrong outputs hold (of finite operands, in the programs that
    stored them), as the located NaN / overflow diagnosis of this output: (diagnosis, finding), or None."""
    a, g = target.a.reshape(-1), target.g.reshape(-1)
    bad = [s for s in samples if s.wrong and not bool(torch.isfinite(a[s.flat])) and bool(torch.isfinite(g[s.flat]))]
    lines = [s.nonfinite["line"] for s in bad if s.nonfinite and s.nonfinite.get("line")]
    if len(bad) < T.ACCESS_MIN_JUDGED or not lines:
        return None
    line = max(sorted(set(lines)), key=lines.count)
    if lines.count(line) < T.ACCESS_WRONG_SHARE * len(bad):
        return None
    origin = next(s.nonfinite for s in bad if s.nonfinite and s.nonfinite.get("line") == line)
    kind = "NaN" if origin.get("makes") == "NaN" else "Inf"
    mine = [d for d in diagnoses if d.output in (target.name, None) and d.tested != "refuted"]
    preferred = ("inf_overflow", "nan_mismatch") if kind == "Inf" else ("nan_mismatch", "inf_overflow")
    known = next((d for p in preferred for d in mine if d.pattern == p), None)
    if known is None:
        return None
    operands = ", ".join(f"{v:.3g}" for v in origin.get("operands", []))
    made = f"{origin.get('operation', '?')}({operands})"
    finding = (
        f"line {line} makes the first {kind} of finite operands ({made}) in the programs that stored "
        f"{lines.count(line)} of the {len(bad)} sampled wrong NaN / Inf outputs"
    )
    location = ctx.line_location(line, f"{made} gives {kind}")
    located = known.model_copy(
        update={
            "location": location,
            "evidence": {**known.evidence, "nonfinite_line": line, "nonfinite_operation": made},
            "summary": f"{known.summary}; {finding}",
        }
    )
    return located, finding


def _established(diagnoses: list[Diagnosis], output: str) -> PatternId | None:
    """A specific logic cause of this output that a proof or an experiment already established."""
    return next(
        (
            d.pattern
            for d in diagnoses
            if d.pattern in ("layout_mismatch", "boundary_mask_error", "unwritten_output")
            and d.tested in ("proven", "confirmed")
            and d.output in (output, None)
        ),
        None,
    )


def _output_name(name: str) -> str:
    return name if name.startswith("output") else f"output {name}"


def _target(ctx: RunContext, diagnoses: list[Diagnosis]) -> OutputData | None:
    target = first_failing(ctx, diagnoses)
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
    samples, names = traced
    origin = _nonfinite_origin(ctx, target, samples, diagnoses)
    if origin is not None:
        located, finding = origin
        return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding), [located])
    established = _established(diagnoses, target.name)
    found = _finding(ctx, established, target, samples, names) or _lane_finding(
        ctx, established, target, samples, names
    )
    if found is None:
        compared = sum(1 for s in samples if s.judgeable and s.needed)
        finding = (
            f"the traced elements read what the reference needs ({compared} of {len(samples)} compared)"
            if compared
            else "nothing to compare: the reference's output has no gradient in a floating input, or the kernel's "
            "reads pass through memory the trace cannot follow"
        )
        return Result(ExperimentOutcome(id=ID, question=QUESTION, finding=finding))
    outcome = ExperimentOutcome(id=ID, question=QUESTION, finding=found.experiment or "", confirms=[found.pattern])
    return Result(outcome, [found])
