"""NaN and Inf where the golden has none (or the reverse), and the source's suspects."""

from __future__ import annotations

import math

import torch

from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors.common import MAX_INDICES, _lines, element_indices
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Evidence, FixId, Location
from tools.repair.source import SourceFacts


def position_pattern(mask: torch.Tensor) -> tuple[str, dict]:
    """Where the True elements of `mask` sit in its last two dimensions, in words: one diagonal
    (column - row constant), whole rows, whole columns, or only how many rows they touch."""
    m = mask.reshape(1, 1, -1) if mask.dim() < 2 else mask.reshape(-1, *mask.shape[-2:])
    hit = torch.nonzero(m)
    if not hit.numel():
        return "", {}
    rows, cols = hit[:, 1], hit[:, 2]
    n_rows, n_cols = m.shape[1], m.shape[2]
    offsets = torch.unique(cols - rows)
    if n_rows > 1 and n_cols > 1 and offsets.numel() == 1:
        d = int(offsets[0])
        where = "on the diagonal (column == row)" if d == 0 else f"on one diagonal (column == row {d:+d})"
        whole = int(m.sum()) == m.shape[0] * max(0, min(n_rows, n_cols - d) - max(0, -d))
        return where + (", all of it" if whole else ""), {"diagonal_offset": d, "whole_diagonal": whole}
    by_row = m.any(dim=0)
    full_rows = by_row.all(dim=1)
    if n_cols > 1 and bool((by_row.any(dim=1) == full_rows).all()):
        r = torch.nonzero(full_rows).flatten()
        return f"whole rows ({r.numel()} of {n_rows}, first {int(r[0])})", {"whole_rows": r[:MAX_INDICES].tolist()}
    full_cols = by_row.all(dim=0)
    if n_rows > 1 and bool((by_row.any(dim=0) == full_cols).all()):
        c = torch.nonzero(full_cols).flatten()
        return f"whole columns ({c.numel()} of {n_cols}, first {int(c[0])})", {"whole_cols": c[:MAX_INDICES].tolist()}
    return f"in {int(by_row.any(dim=1).sum())} of {n_rows} rows", {}


def _masked_output_mismatch(o: OutputData, bad_inf: torch.Tensor) -> Diagnosis | None:
    """The golden holds +/-inf itself (a mask value, e.g. -inf above the diagonal of causal
    scores) and the output holds the same infinities at other positions: the condition choosing
    where the mask value goes is wrong, not the arithmetic."""
    a, g = o.a, o.g
    legit = torch.isinf(g)
    if not bool(legit.any()) or bool(torch.isnan(a).any()):
        return None
    lost = legit & torch.isfinite(a)
    if not bool(bad_inf.any()) and not bool(lost.any()):
        return None
    if not set(torch.unique(a[bad_inf]).tolist()) <= set(torch.unique(g[legit]).tolist()):
        return None  # an infinity the golden never holds: computed, not the mask value

    def named(t: torch.Tensor) -> str:
        return "/".join(f"{float(v):g}" for v in torch.unique(t))

    parts: list[str] = []
    evidence: Evidence = {"golden_infinities": int(legit.sum())}
    for key, mask, text in (
        ("inf_where_golden_finite", bad_inf, f"{named(a[bad_inf])} where the golden is finite"),
        ("finite_where_golden_inf", lost, f"finite where the golden is {named(g[lost])}"),
    ):
        if bool(mask.any()):
            place, shape = position_pattern(mask)
            parts.append(f"{int(mask.sum())} {text}, {place}")
            evidence |= {key: int(mask.sum()), f"{key}_positions": place} | {f"{key}_{k}": v for k, v in shape.items()}
    patterned = any(k.endswith(("diagonal_offset", "whole_rows", "whole_cols")) for k in evidence)
    both = bad_inf | lost
    return Diagnosis(
        pattern="formula_error",
        confidence=0.85 if patterned else 0.7,
        seed=o.seed,
        output=o.name,
        summary="; ".join(parts) + f". The golden holds {named(g[legit])} itself "
        f"({int(legit.sum())} elements): the kernel writes that mask value at other positions, so the condition "
        "that selects them (a comparison such as > vs >=, an index or a bound) is wrong, not the arithmetic",
        evidence=evidence,
        suggested_fixes=["fix_formula"],
        location=Location(description="Inf where the golden differs", indices=element_indices(both, tuple(a.shape))),
    )


def _max_input_magnitude(ctx: RunContext) -> float:
    floats = [t for t in ctx.inputs if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()]
    if not floats:
        return 0.0
    return max(float(t.to(torch.float64).abs().nan_to_num(0, 0, 0).max()) for t in floats)


@detector("nan_inf", ("inf_overflow", "nan_mismatch"))
def nan_inf(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    a, g = o.a, o.g
    poison = o.unwritten()
    computed_nan = torch.isnan(a) & ~torch.isnan(g)
    if poison.numel():
        computed_nan &= ~poison
    dropped_nan = torch.isnan(g) & ~torch.isnan(a)
    actual = o.measured
    dtype_max = float(torch.finfo(actual.dtype).max) if actual.is_floating_point() else math.inf
    bad_inf = torch.isinf(a) & torch.isfinite(g) & (g.abs() <= dtype_max)
    if actual.is_floating_point() and not bool(computed_nan.any()):
        masked = _masked_output_mismatch(o, bad_inf)
        if masked is not None:
            return [masked]
    out = []
    if bool(computed_nan.any()) or bool(bad_inf.any()):
        count = int(computed_nan.sum()) + int(bad_inf.sum())
        magnitude = _max_input_magnitude(ctx)
        overflow_limit = math.log(dtype_max) if actual.is_floating_point() else math.inf
        evidence: Evidence = {
            "nan_where_golden_finite": int(computed_nan.sum()),
            "inf_where_golden_finite": int(bad_inf.sum()),
            "max_abs_input": magnitude,
            "exp_overflows_above": overflow_limit,
            "input_profile": ctx.task.input_profile,
        }
        if facts.exp_without_max:
            evidence["exp_without_max_subtraction"] = _lines(facts.exp_without_max)
        large = magnitude > overflow_limit / 2 or ctx.task.input_profile == "large_magnitude"
        if large or facts.exp_without_max:
            fixes: list[FixId] = ["max_subtraction", "stable_formula"] if facts.exp_without_max else ["stable_formula"]
            if facts.mentions_low_precision or facts.low_precision_accumulator:
                fixes.append("fp32_accumulator")  # an fp16 intermediate overflows at 65504, long before fp32
            out.append(
                Diagnosis(
                    pattern="inf_overflow",
                    confidence=0.9 if facts.exp_without_max else 0.75,
                    seed=o.seed,
                    output=o.name,
                    summary=f"{count} element(s) became Inf/NaN where the golden is finite: an intermediate overflowed "
                    f"(inputs reach {magnitude:.3g}; exp overflows above {overflow_limit:.3g})"
                    + (
                        f"; exp without max subtraction at {_lines(facts.exp_without_max)}"
                        if facts.exp_without_max
                        else ""
                    ),
                    evidence=evidence,
                    suggested_fixes=fixes,
                    location=Location(
                        description="non-finite outputs",
                        indices=element_indices(computed_nan | bad_inf, tuple(a.shape)),
                    ),
                )
            )
        else:
            place, _ = position_pattern(computed_nan | bad_inf)
            out.append(
                Diagnosis(
                    pattern="nan_mismatch",
                    confidence=0.8,
                    seed=o.seed,
                    output=o.name,
                    summary=f"{count} NaN/Inf element(s) where the golden is finite ({place}): an invalid operation "
                    "(0/0, inf-inf, log of a negative, sqrt of a negative)",
                    evidence=evidence | {"positions": place},
                    suggested_fixes=["stable_formula"],
                    location=Location(
                        description="NaN/Inf outputs", indices=element_indices(computed_nan | bad_inf, tuple(a.shape))
                    ),
                )
            )
    if bool(dropped_nan.any()):
        out.append(
            Diagnosis(
                pattern="nan_mismatch",
                confidence=0.85,
                seed=o.seed,
                output=o.name,
                summary=f"{int(dropped_nan.sum())} element(s) are finite where the golden is NaN: the kernel drops NaN "
                "inputs (e.g. tl.where(x > 0, x, 0) or max/min that ignore NaN) instead of propagating them",
                evidence={"finite_where_golden_nan": int(dropped_nan.sum())},
                suggested_fixes=["nan_propagation"],
                location=Location(
                    description="NaN in the golden, a number in the output",
                    indices=element_indices(dropped_nan, tuple(a.shape)),
                ),
            )
        )
    return out


@detector("source_suspects", ("boundary_mask_error", "layout_mismatch", "reduced_precision_dot"), only_failed=True)
def source_suspects(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    """Constructs in the candidate that can cause a failure without a symptom of their own:
    hypotheses of low confidence for the patch trial to confirm or leave (never on a pass)."""
    out = []
    unmasked = facts.unmasked_loads + facts.unmasked_stores
    partial = facts.partially_masked_loads + facts.partially_masked_stores
    if unmasked or partial:
        parts = [f"tl.load / tl.store of a block without a mask ({_lines(unmasked)})"] if unmasked else []
        if partial:
            parts.append(f"masks that leave a BLOCK-tiled dimension of the pointer unbounded ({_lines(partial)})")
        out.append(
            Diagnosis(
                pattern="boundary_mask_error",
                confidence=0.45,
                seed=o.seed,
                output=o.name,
                summary=f"{'; '.join(parts)}: a partial last block reads or writes past "
                "the data (within a tensor that is the next row's elements)",
                evidence={"unmasked": _lines(unmasked) or None, "partially_masked": _lines(partial) or None},
                suggested_fixes=["boundary_mask"],
            )
        )
    gpu = ctx.result.backend is not None and not ctx.result.backend.interpreter
    # tf32 rounds fp32 dot operands only: an int8 or fp16 GEMM with an fp32 scale vector is not one
    fp32_matrices = any(isinstance(t, torch.Tensor) and t.dtype == torch.float32 and t.dim() >= 2 for t in ctx.inputs)
    if gpu and facts.dot_without_ieee and fp32_matrices:
        out.append(
            Diagnosis(
                pattern="reduced_precision_dot",
                confidence=0.45,
                seed=o.seed,
                output=o.name,
                summary=f"tl.dot on fp32 data without input_precision='ieee' ({_lines(facts.dot_without_ieee)}): "
                "the GPU multiplies tf32 (10-bit mantissas)",
                evidence={"dot_without_ieee": _lines(facts.dot_without_ieee)},
                suggested_fixes=["ieee_dot_precision"],
            )
        )
    if facts.swapped_strides:
        out.append(
            Diagnosis(
                pattern="layout_mismatch",
                confidence=0.45,
                seed=o.seed,
                output=o.name,
                summary=f"strides passed as (stride(d + 1), stride(d)) ({_lines(facts.swapped_strides)}): "
                "rows and columns may be swapped",
                evidence={"swapped_strides": _lines(facts.swapped_strides)},
                suggested_fixes=["fix_layout"],
            )
        )
    return out
