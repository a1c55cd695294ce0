"""Verdicts that produced no numbers: a crash, a timeout, a rejection, a compile error."""

from __future__ import annotations

from tools.diagnosis.context import RunContext
from tools.diagnosis.detectors.common import _lines
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis
from tools.repair.source import SourceFacts


@detector(
    "verdict",
    (
        "no_kernel_launched",
        "input_mutation",
        "unsupported",
        "timeout",
        "crash",
        "boundary_mask_error",
        "compile_error",
        "runtime_error",
    ),
    scope="run",
)
def from_verdict(ctx: RunContext, facts: SourceFacts) -> list[Diagnosis]:
    result = ctx.result
    error = result.error
    if result.verdict in ("pass", "fail") or error is None:
        return []
    where = error.where
    evidence = {
        "type": error.type,
        "message": error.message[:300],
        "file": error.file,
        "line": error.line,
        "source_line": error.source_line,
    }
    if result.verdict == "rejected":
        if error.type == "no_kernel_launched":
            return [
                Diagnosis(
                    pattern="no_kernel_launched",
                    confidence=0.99,
                    summary="the forward launched no Triton kernel; it computed with torch "
                    f"({', '.join(result.checks.torch_calls) or 'no torch call either'})",
                    evidence={
                        "kernel_launches": result.checks.kernel_launches,
                        "torch_calls": list(result.checks.torch_calls),
                    },
                    suggested_fixes=["use_kernel"],
                )
            ]
        if error.type != "input_mutation":  # e.g. malformed_report: the job's code changed the harness
            return [
                Diagnosis(
                    pattern="runtime_error",
                    confidence=0.9,
                    summary=error.message,
                    evidence=evidence,
                    suggested_fixes=["fix_error"],
                )
            ]
        return [
            Diagnosis(
                pattern="input_mutation",
                confidence=0.99,
                summary=f"the forward wrote into its input(s) {result.checks.input_mutation}: "
                "callers see their inputs change",
                evidence={"mutated_inputs": result.checks.input_mutation},
                suggested_fixes=["do_not_mutate_inputs"],
            )
        ]
    if result.verdict == "unsupported":
        return [Diagnosis(pattern="unsupported", confidence=0.99, summary=error.message, evidence=evidence)]
    if result.verdict == "timeout":
        return [
            Diagnosis(
                pattern="timeout",
                confidence=0.9,
                summary=f"{error.message}; an endless loop or a grid far too large is typical",
                evidence=evidence,
                suggested_fixes=["fix_error"],
            )
        ]
    if result.verdict == "crashed":
        out = [
            Diagnosis(
                pattern="crash",
                confidence=0.8,
                summary=f"{error.message.splitlines()[0]}{where}",
                evidence=evidence,
                suggested_fixes=["fix_error"],
            )
        ]
        if error.type in ("SIGSEGV", "SIGBUS") or any(
            m in error.message for m in ("illegal memory access", "illegal address")
        ):
            out.insert(
                0,
                Diagnosis(
                    pattern="boundary_mask_error",
                    confidence=0.85,
                    summary="an invalid memory access: a tl.load or tl.store reached outside its tensor "
                    "(a missing mask or a grid larger than the data)",
                    evidence=evidence,
                    suggested_fixes=["boundary_mask"],
                ),
            )
            if facts.swapped_strides:  # rows walked with the column stride also leave the tensor
                out.insert(
                    1,
                    Diagnosis(
                        pattern="layout_mismatch",
                        confidence=0.6,
                        summary=f"strides passed as (stride(d + 1), stride(d)) at {_lines(facts.swapped_strides)}: "
                        "walking rows with the column stride leaves the tensor",
                        evidence={"swapped_strides": _lines(facts.swapped_strides)},
                        suggested_fixes=["fix_layout"],
                    ),
                )
        return out
    pattern = "compile_error" if result.verdict == "compile_error" else "runtime_error"
    return [
        Diagnosis(
            pattern=pattern,
            confidence=0.95,
            summary=f"{error.type}: {error.message.splitlines()[0]}{where}",
            evidence=evidence,
            suggested_fixes=["fix_error"],
        )
    ]
