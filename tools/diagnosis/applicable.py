"""Fixes and hypotheses the candidate's own source rules out, applied after detection.

fp32_accumulator is offered only where it changes a number: a kernel that already accumulates in
fp32 (fp32 data throughout, or low-precision data already upcast) gets no such fix, and its
accumulation-precision hypotheses rank below logic ones (and point at the formula). stable_formula
is offered only where the source has a construct it rewrites (log(1 + x), exp(x) - 1, a one-pass
variance).
"""

from __future__ import annotations

import torch

from tools import thresholds as T
from tools.diagnosis.context import RunContext
from tools.diagnosis.experiments import PRECISION_PATTERNS
from tools.models.diagnosis import Diagnosis, ExperimentOutcome
from tools.repair.formulas import stable_formula
from tools.repair.patches import fp32_accumulator
from tools.repair.source import SourceFacts

#: Hypotheses that blame the precision of an accumulation or intermediate.
ACCUMULATION_HYPOTHESES = ("low_precision_accumulation", "small_value_outliers")


def _low_precision_data(ctx: RunContext) -> bool:
    tensors = [t for t in ctx.inputs if isinstance(t, torch.Tensor)]
    tensors += [o.golden for o in ctx.outputs if o.golden is not None]
    return any(t.is_floating_point() and t.element_size() < 4 for t in tensors)


def accumulates_in_fp32(ctx: RunContext, facts: SourceFacts) -> bool:
    """True when the fp32_accumulator rewrite has nothing numerical to change."""
    if facts.parse_error or facts.low_precision_accumulator or not ctx.source:
        return False
    low = _low_precision_data(ctx) or facts.mentions_low_precision
    return fp32_accumulator(ctx.source, upcast=low) is None


def has_stable_formula_construct(ctx: RunContext, facts: SourceFacts) -> bool:
    return bool(facts.log_one_plus or facts.one_pass_variance) or stable_formula(ctx.source) is not None


def _rounding_shown(outcomes: list[ExperimentOutcome]) -> bool:
    """An experiment showed the failure to be rounding (exact arithmetic made it pass, the error fell)."""
    return any(o.rounding_shown for o in outcomes)


def _logic_instead(d: Diagnosis, ratio: str) -> Diagnosis:
    """The honest reading of a precision hypothesis that the source rules out: by elimination, a low-
    confidence formula / logic error (nothing tested it)."""
    return Diagnosis(
        pattern="formula_error",
        confidence=T.FP32_KERNEL_LOGIC_CONFIDENCE,
        seed=d.seed,
        output=d.output,
        summary=f"the error is {ratio} the CPU control's, in a kernel that already computes and accumulates in fp32 "
        "(the control's precision), so no precision loss explains it: the kernel likely computes something else "
        "(the formula, a divisor, an index, a loop bound or a carry); no experiment located it, compare the kernel "
        "with the reference",
        evidence={**d.evidence, "accumulates_in_fp32": True, "by_elimination_of": d.pattern},
        suggested_fixes=["fix_formula"],
    )


def apply(
    ctx: RunContext, facts: SourceFacts, diagnoses: list[Diagnosis], outcomes: list[ExperimentOutcome] | None = None
) -> None:
    offered = {f for d in diagnoses for f in d.suggested_fixes}
    fp32 = "fp32_accumulator" in offered and accumulates_in_fp32(ctx, facts)
    stable = "stable_formula" not in offered or has_stable_formula_construct(ctx, facts)
    outcomes = outcomes or []
    refuted = {p for o in outcomes for p in o.refutes}
    added: list[Diagnosis] = []
    for d in diagnoses:
        # a widening the repair search re-ran and saw pass outweighs the source's fp32 accumulator (the narrow value
        # is elsewhere: a cast to fp16 of an intermediate)
        repaired = "edit_after" in d.evidence and d.tested in ("confirmed", "proven")
        if fp32 and "fp32_accumulator" in d.suggested_fixes and not repaired:
            d.suggested_fixes = [f for f in d.suggested_fixes if f != "fp32_accumulator"]
            d.evidence = {**d.evidence, "accumulates_in_fp32": True}
            if d.pattern in ACCUMULATION_HYPOTHESES and d.tested == "untested":
                # same precision as the CPU control, far more error: the arithmetic itself differs
                d.confidence = min(d.confidence, T.FP32_KERNEL_PRECISION_CONFIDENCE)
                if d.pattern == "low_precision_accumulation" and not _rounding_shown(outcomes):
                    # the hypothesis contradicts the source: it is refuted by it, never the lead
                    ratio = d.evidence.get("mere_over_cpu")
                    ratio_text = f"{ratio:.3g}x" if isinstance(ratio, float) else "far beyond"
                    logic = any(
                        x.pattern not in PRECISION_PATTERNS and x.tested != "refuted" and x.output in (d.output, None)
                        for x in diagnoses
                    )
                    if not logic and "formula_error" not in refuted:
                        added.append(_logic_instead(d, ratio_text))
                    d.tested = "refuted"
                    d.experiment = "the source: the kernel already accumulates in fp32, as the CPU control does"
                    d.confidence = round(d.confidence * T.REFUTED_FACTOR, 3)
                    d.summary += "; but the kernel already accumulates in fp32, so this does not explain the failure"
                else:
                    d.summary += "; but the kernel already accumulates in fp32, so look for a formula or logic error"
                if "fix_formula" not in d.suggested_fixes:
                    d.suggested_fixes.append("fix_formula")
        if not stable:
            d.suggested_fixes = [f for f in d.suggested_fixes if f != "stable_formula"]
    diagnoses.extend(added)
