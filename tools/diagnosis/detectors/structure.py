"""Structural mismatches: the output's shape or dtype is not the golden's."""

from __future__ import annotations

import torch

from tools.diagnosis.context import RunContext
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Evidence
from tools.repair import allocation
from tools.repair.source import SourceFacts


@detector("structure", ("shape_mismatch", "dtype_mismatch"), scope="run", proof=True)
def structural(ctx: RunContext, facts: SourceFacts) -> list[Diagnosis]:
    out = []
    for seed in ctx.result.seeds:
        if not seed.outputs and "output_count_mismatch" in seed.summary:
            out.append(
                Diagnosis(
                    pattern="shape_mismatch",
                    confidence=0.95,
                    seed=seed.seed,
                    summary=seed.summary.split(": ", 1)[-1],
                    evidence={"kind": "output_count_mismatch"},
                )
            )
        for o in seed.outputs:
            if o.error_kind == "shape_mismatch":
                out.append(_shape_mismatch(ctx, seed.seed, o))
            elif o.error_kind in ("not_a_tensor", "output_count_mismatch"):
                out.append(
                    Diagnosis(
                        pattern="shape_mismatch",
                        confidence=0.97,
                        seed=seed.seed,
                        output=o.name,
                        summary=o.error_msg or o.summary,
                        evidence={"kind": o.error_kind},
                    )
                )
            elif o.error_kind == "dtype_mismatch":
                out.append(_dtype_mismatch(ctx, seed.seed, o))
        if out:
            break
    return out


def _differing_dims(actual: tuple[int, ...], golden: tuple[int, ...]) -> str:
    """'dimension 1 is 251 where the reference's is 252 (1 short)', for each dimension that differs."""
    if len(actual) != len(golden):
        return f"{len(actual)} dimensions where the reference's output has {len(golden)}"
    parts = []
    for dim, (a, g) in enumerate(zip(actual, golden, strict=True)):
        if a != g:
            off = f"{g - a} short" if a < g else f"{a - g} over"
            parts.append(f"dimension {dim} is {a} where the reference's is {g} ({off})")
    return "; ".join(parts)


def _shape_mismatch(ctx: RunContext, seed: int, o) -> Diagnosis:
    """The output's shape is not the reference's: located at the forward line that makes the returned tensor, with
    the lines its sizes come from (tools/repair/allocation.shape_lines) for the repair search to edit."""
    summary = o.error_msg or o.summary
    evidence: Evidence = {"kind": o.error_kind}
    data = next((x for x in ctx.outputs if x.seed == seed and x.name == o.name and x.actual is not None), None)
    if data is not None:
        summary += f": {_differing_dims(tuple(data.measured.shape), tuple(data.golden.shape))}"
    lines = allocation.shape_lines(ctx.source, o.name) if ctx.source else []
    if not lines:
        return Diagnosis(
            pattern="shape_mismatch", confidence=0.97, seed=seed, output=o.name, summary=summary, evidence=evidence
        )
    evidence["search_lines"] = lines
    others = (
        f" (its sizes from line{'s' if len(lines) > 2 else ''} {', '.join(map(str, lines[1:]))})" if lines[1:] else ""
    )
    return Diagnosis(
        pattern="shape_mismatch",
        confidence=0.97,
        seed=seed,
        output=o.name,
        summary=f"{summary}; line {lines[0]} makes the returned tensor{others}",
        evidence=evidence,
        location=ctx.line_location(lines[0], "makes the returned tensor"),
    )


def _dtype_mismatch(ctx: RunContext, seed: int, o) -> Diagnosis:
    """The output's dtype is not the reference's: located at the forward's allocation it most likely comes from
    (tools/repair/allocation.py), with output_dtype's patch when the expected dtype is known."""
    summary = o.error_msg or o.summary
    evidence: Evidence = {"kind": o.error_kind, "expected_dtype": o.dtype, "actual_dtype": o.actual_dtype}
    inputs = ctx.inputs_of(seed) or []
    tensors = {
        name: str(t.dtype).removeprefix("torch.")
        for name, t in zip(allocation.forward_parameters(ctx.source), inputs, strict=False)
        if isinstance(t, torch.Tensor)
    }
    made = allocation.locate(ctx.source, o.actual_dtype, tensors, o.name) if o.actual_dtype else None
    if made is None:
        return Diagnosis(
            pattern="dtype_mismatch", confidence=0.97, seed=seed, output=o.name, summary=summary, evidence=evidence
        )
    evidence["allocation_line"] = made.line
    what = f"{made.code} makes the output {o.actual_dtype}; the reference returns {o.dtype}"
    return Diagnosis(
        pattern="dtype_mismatch",
        confidence=0.97,
        seed=seed,
        output=o.name,
        summary=f"{summary}: line {made.line} allocates it ({made.code})",
        evidence=evidence,
        location=ctx.line_location(made.line, what),
        suggested_fixes=["output_dtype"],
    )
