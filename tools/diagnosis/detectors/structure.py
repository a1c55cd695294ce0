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
            if o.error_kind in ("shape_mismatch", "not_a_tensor", "output_count_mismatch"):
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
    made = allocation.locate(ctx.source, o.actual_dtype, tensors) if o.actual_dtype else None
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
