"""kernel-eval mutate: plant known bugs in a correct candidate and see which the task's test catches.

A survivor is either a weak test (the inputs never reach the bug: `rand` inputs never expose a
cancellation bug, a size that is a multiple of the block never exposes a missing mask) or an
equivalent mutant (the change does not matter for this kernel). With probe_exposures, each
survivor is re-run under the inputs that expose its operator, which tells the two apart.
"""

from __future__ import annotations

import difflib

from sandbox import protocol
from tools import shapes, sources
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest, RunAccuracyResult
from tools.models.mutate import MutantResult, MutateRequest, MutateResult
from tools.mutate.operators import OPERATORS, Exposure, Operator
from tools.services import progress_reporter, resolve_backend

#: A survivor whose worst error is this many times the original's is a real bug, not an equivalent.
LATENT_ERROR_RATIO = 2.0


def _diff(before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile="a/candidate.py",
            tofile="b/candidate.py",
            n=1,
        )
    )


def caught(result: RunAccuracyResult) -> bool:
    """Rejected by the test, a pass whose loads were recorded reading past its tensors (cpu), or a pass at the
    task's sizes that fails at another (the shape check)."""
    return result.verdict != "pass" or bool(result.checks.out_of_bounds_reads) or _fails_at_other_sizes(result)


def _fails_at_other_sizes(result: RunAccuracyResult) -> bool:
    return result.shapes is not None and result.shapes.first_failure() is not None


def _mutant_summary(result: RunAccuracyResult) -> str:
    if result.verdict == "pass" and _fails_at_other_sizes(result):
        assert result.shapes is not None
        failed = result.shapes.first_failure()
        assert failed is not None
        return f"caught by the shape check at {shapes.describe(failed.sizes)}: {failed.summary}"
    if result.verdict == "pass" and result.checks.out_of_bounds_reads:
        r = result.checks.out_of_bounds_reads[0]
        return f"caught as a latent out-of-bounds read of {r.tensor} (the values pass): {result.summary}"
    return result.summary


def _worst_mare(result: RunAccuracyResult) -> float:
    values = []
    for seed in result.seeds:
        for output in seed.outputs:
            try:
                values.append(float(output.mare))
            except (TypeError, ValueError):
                continue
    return max(values, default=0.0)


def _warning_texts(result: RunAccuracyResult) -> set[str]:
    """Warnings without their seed prefix, so two runs on the same seeds compare."""
    return {w.split(": ", 1)[-1] for w in result.warnings}


def _same_output(original_run: str, mutant_run: str) -> bool | None:
    """Are the two runs' first-seed outputs bitwise equal (None: a run kept no tensors)?"""
    from sandbox.harness.common import bitwise_equal, tree_tensors
    from tools.services import services

    runs = services().runs
    first, second = (runs.tensors(r).get(protocol.key(0, "actual")) for r in (original_run, mutant_run))
    if first is None or second is None:
        return None
    a, b = tree_tensors(first), tree_tensors(second)
    return len(a) == len(b) and all(x.shape == y.shape and bitwise_equal(x, y) for x, y in zip(a, b, strict=True))


def original_seeds(result: RunAccuracyResult) -> list[int]:
    return [s.seed for s in result.seeds]


def _operators(names: list[str] | None) -> list[Operator]:
    if not names:
        return list(OPERATORS.values())
    unknown = [n for n in names if n not in OPERATORS]
    if unknown:
        raise ToolInputError(f"unknown mutation operator(s) {', '.join(unknown)}; known: {', '.join(OPERATORS)}")
    return [OPERATORS[n] for n in names]


def _request(
    request: MutateRequest, candidate: str, exposure: Exposure | None = None, shapes_mode: str = "warn"
) -> RunAccuracyRequest:
    fields = {k: v for k, v in request.model_dump().items() if k in RunAccuracyRequest.model_fields}
    fields.update(candidate=candidate, determinism="off", shapes_mode=shapes_mode)
    if exposure is not None:
        fields.update(input_profile=exposure.input_profile, value_range=exposure.value_range)
    return RunAccuracyRequest.model_validate(fields)


def _label(exposure: Exposure) -> str:
    return f"input_profile={exposure.input_profile}" + (
        f", value_range={list(exposure.value_range)}" if exposure.value_range else ""
    )


def mutate(request: MutateRequest, progress=None, cancel=None) -> MutateResult:
    """Raises ToolInputError when the correct candidate itself does not pass (nothing to mutate from)."""
    from tools.accuracy import run_accuracy

    report = progress_reporter(progress)
    source, _ = sources.resolve(request.candidate, "candidate")
    original = run_accuracy(_request(request, source), cancel=cancel)
    request = request.model_copy(update={"seeds": original_seeds(original)})  # every mutant on the original's inputs
    if original.verdict != "pass":
        raise ToolInputError(
            f"the candidate must pass before it is mutated; it got {original.verdict}: {original.summary}"
        )
    # a shape check the original itself fails would catch every mutant: it counts only when the original passes it
    shapes_mode = "off" if _fails_at_other_sizes(original) else "warn"
    compiled = resolve_backend(request.backend).gpu  # operators whose bug only compiled Triton shows
    planned = [
        (op, site, mutant)
        for op in _operators(request.operators)
        for site, mutant in enumerate(op.mutants(source))
        if not op.gpu_only or compiled
    ][: request.max_mutants]
    results: list[MutantResult] = []
    exposing: dict[int, Exposure] = {}
    probes: dict[int, list[Exposure]] = {}
    for i, (op, site, mutant) in enumerate(planned):
        if cancel is not None and cancel.is_set():
            raise ToolInputError("cancelled by the caller")
        report(i / max(1, len(planned)), f"{op.id} #{site}")
        run = run_accuracy(_request(request, mutant, shapes_mode=shapes_mode), cancel=cancel)
        entry = MutantResult(
            operator=op.id,
            description=op.description,
            site=site,
            verdict=run.verdict,
            caught=caught(run),
            summary=_mutant_summary(run),
            run_id=run.run_id,
            diff=_diff(source, mutant),
        )
        if not entry.caught:  # survived: is it harmless, or a bug the thresholds let through?
            base = _worst_mare(original)
            entry.error_ratio = _worst_mare(run) / base if base > 0 else None
            entry.new_warnings = sorted(_warning_texts(run) - _warning_texts(original))[:3]
            entry.same_output = _same_output(original.run_id, run.run_id)
        if not entry.caught and run.backend is not None and run.backend.interpreter:
            entry.gpu_compile_error = _gpu_compile_error(request, mutant, cancel)
        if not entry.caught and not entry.gpu_compile_error and request.probe_exposures:
            for exposure in op.exposures:
                if (exposure.input_profile, exposure.value_range) == (request.input_profile, request.value_range):
                    continue
                probes.setdefault(len(results), []).append(exposure)
                if caught(run_accuracy(_request(request, mutant, exposure, shapes_mode="off"), cancel=cancel)):
                    entry.caught_with = _label(exposure)
                    exposing[len(results)] = exposure
                    break
        results.append(entry)
    report(1.0, "done")
    return _summarise(results, exposing, probes, len(request.seeds or []), request.probe_exposures)


def _gpu_compile_error(request: MutateRequest, mutant: str, cancel) -> str | None:
    """Why the real compiler rejects a mutant the interpreter ran (fp16 loop-carried accumulators
    assigned fp32 values, say), or None when it compiles."""
    from tools.compile import compile_kernel
    from tools.models.compile import CompileKernelRequest

    compiled = compile_kernel(
        CompileKernelRequest(
            candidate=mutant,
            reference=request.reference,
            backend="cpu",
            dtype=request.dtype,
            timeout_s=request.timeout_s,
            memory_mb=request.memory_mb,
        ),
        cancel=cancel,
    )
    if compiled.verdict != "compile_error":
        return None
    return (compiled.error.message if compiled.error else compiled.summary)[:300]


def _flags(exposure: Exposure) -> str:
    """The options of `kernel-eval run` (and mutate) that give these inputs."""
    flags = []
    if exposure.input_profile != "task" or exposure.value_range is None:
        flags.append(f"--input-profile {exposure.input_profile}")
    if exposure.value_range is not None:
        flags.append(f"--value-range {exposure.value_range[0]:g} {exposure.value_range[1]:g}")
    return " ".join(flags)


def _names(mutants: list[MutantResult]) -> str:
    return ", ".join(f"{m.operator} #{m.site}" for m in mutants)


def _exposure_advice(results: list[MutantResult], exposing: dict[int, Exposure]) -> list[str]:
    """One line per set of inputs that catches survivors: the option to add, and which survivors it catches."""
    by_exposure: dict[Exposure, list[MutantResult]] = {}
    for index, exposure in exposing.items():
        by_exposure.setdefault(exposure, []).append(results[index])
    return [
        f"add a run with `{_flags(exposure)}` to your test: the task's inputs miss {_names(caught_there)}, "
        f"which {'it catches' if len(caught_there) == 1 else 'those inputs catch'}"
        for exposure, caught_there in sorted(by_exposure.items(), key=lambda kv: _flags(kv[0]))
    ]


def _summarise(
    results: list[MutantResult],
    exposing: dict[int, Exposure] | None = None,
    probes: dict[int, list[Exposure]] | None = None,
    num_seeds: int = 0,
    probed: bool = True,
) -> MutateResult:
    """`exposing`: result index -> the inputs that caught that survivor; `probes`: index -> the inputs
    tried on it (beyond the task's own); `num_seeds`: how many seeds each mutant ran on; `probed`:
    whether survivors were re-run under the inputs that expose their operators at all."""
    exposing, probes = exposing or {}, probes or {}
    stillborn = [r for r in results if r.gpu_compile_error]
    counted = [r for r in results if not r.gpu_compile_error]
    by_operator: dict[str, list[int]] = {}
    for r in counted:
        counts = by_operator.setdefault(r.operator, [0, 0])
        counts[0] += int(r.caught)
        counts[1] += 1
    killed = sum(r.caught for r in counted)
    score = killed / len(counted) if counted else 1.0
    advice = _exposure_advice(results, exposing)
    if stillborn:
        advice.append(
            f"{_names(stillborn)}: not counted, Triton's compiler for sm_90 rejects "
            + ("it" if len(stillborn) == 1 else "them")
            + f" ({stillborn[0].gpu_compile_error}); the interpreter alone ran "
            + ("it" if len(stillborn) == 1 else "them")
        )
    latent = [
        r
        for r in counted
        if not r.caught and not r.caught_with and ((r.error_ratio or 0) >= LATENT_ERROR_RATIO or r.new_warnings)
    ]
    for r in latent:
        why = (
            f"its worst error is {r.error_ratio:.3g}x the original's"
            if (r.error_ratio or 0) >= LATENT_ERROR_RATIO
            else f"it adds the warning '{r.new_warnings[0][:100]}'"
        )
        advice.append(
            f"{r.operator} #{r.site} passes but {why}: a real defect your thresholds let through "
            "(tighten them with `--thresholds DTYPE=MERE`, or try other shapes: a size that is not a multiple "
            "of the block)"
        )
    changed = [r for r in counted if not r.caught and not r.caught_with and r not in latent and r.same_output is False]
    for r in changed:
        ratio = f" (its worst error is {r.error_ratio:.3g}x the original's)" if r.error_ratio else ""
        advice.append(
            f"{r.operator} #{r.site} passes but changes the output{ratio}: harmless rounding or a small real defect "
            "the thresholds tolerate; read its diff"
        )
    unexposed = [
        i
        for i, r in enumerate(results)
        if not r.caught and not r.caught_with and not r.gpu_compile_error and r not in latent and r not in changed
    ]
    if unexposed:
        named = ", ".join(
            f"{results[i].operator} #{results[i].site}"
            + (f" (nor with `{'`, `'.join(_flags(e) for e in probes[i])}`)" if probes.get(i) else "")
            for i in unexposed
        )
        on = f" on its {num_seeds} seed(s)" if num_seeds else ""
        same = all(results[i].same_output for i in unexposed)
        loads = any(results[i].operator == "drop_load_mask" for i in unexposed)
        advice.append(
            f"{named}: not caught by the task's inputs{on}, and "
            + ("the output is bitwise the original's; " if same else "nothing measurable changes; ")
            + (
                "no input profile this tool knows exposes them (likely equivalent for this kernel, or a bug only "
                "other shapes or a GPU show"
                + (": an unmasked load that is never stored can still fault on a GPU)" if loads else ")")
                if probed
                else "re-run without --no-probe-exposures to try the inputs that expose their operators"
            )
        )
    if counted and killed == len(counted):
        advice.append(
            f"nothing survived: the task's test catches every one of the {len(counted)} mutant(s) "
            f"({', '.join(by_operator)}); no profile or seed to add"
        )
    summary = (
        f"{killed} of {len(counted)} mutants caught (score {score:.0%})"
        + (f"; {len(counted) - killed} survived" if killed < len(counted) else "")
        + (f"; {len(stillborn)} more do not compile for a GPU (not counted)" if stillborn else "")
        if results
        else "no mutation operator applies to this candidate"
    )
    return MutateResult(
        summary=summary,
        mutants=results,
        caught=killed,
        survived=len(counted) - killed,
        mutation_score=score,
        by_operator=by_operator,
        advice=advice,
    )
