"""The output as a transform of the golden: transposed, moved, scaled by one or a few factors."""

from __future__ import annotations

import math

import torch

from tools import thresholds as T
from tools.diagnosis import copies, misplaced
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors.common import _finite_pair, flat_index, nonfinite_agree, tail_views
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Location
from tools.repair import reach
from tools.repair.source import SourceFacts


@detector("layout", ("layout_mismatch", "formula_error"), suppresses=("precision", "nan_inf"), only_failed=True)
def layout(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    """The output is a transform of the golden: transposed, or scaled by one constant factor.
    Non-finite elements must match (position and value); the finite ones decide."""
    a, g = o.a, o.g
    if 0 < a.numel() < 4:
        scalar = _scalar_scale_diagnosis(ctx, o)
        return [scalar] if scalar is not None else []
    if a.numel() < 4 or int(torch.isfinite(g).sum()) < 4:
        return []

    def close(x, y):
        """Equal up to rounding: the error against |y| floored at 1e-3 of y's scale, so values
        near zero (cancellation in randn matmuls) do not decide; a real mismatch is off by O(1)."""
        if not nonfinite_agree(x, y):
            return False
        x, y = _finite_pair(x, y)
        floor = 1e-3 * float(y.abs().max()) + 1e-30
        return float(((x - y).abs() / (y.abs() + floor)).max()) < 1e-2

    candidates = []
    if a.dim() >= 2 and a.shape[-1] == a.shape[-2]:
        candidates.append(("the golden transposed in its last two dimensions", g.transpose(-1, -2)))
    if a.dim() >= 2:
        flat_t = g.transpose(-1, -2).contiguous().reshape(a.shape)
        candidates.append(("the golden transposed and read back in the output's shape (swapped strides)", flat_t))
    for description, transformed in candidates:
        if transformed.shape == a.shape and close(transformed, g):
            continue  # the transform leaves the golden as it is (a dimension of 1, a symmetric golden): no evidence
        if transformed.shape == a.shape and close(a, transformed):
            return [
                Diagnosis(
                    pattern="layout_mismatch",
                    confidence=0.95,
                    seed=o.seed,
                    output=o.name,
                    summary=f"the output equals {description}"
                    + ("" if bool(torch.isfinite(g).all()) else " (its Inf/NaN included)")
                    + ": rows and columns (strides) are swapped in the store or the launch",
                    evidence={"matches": description},
                    suggested_fixes=["fix_layout"],
                    tested="proven",
                )
            ]
    # Where the op outputs input values (a copy, a max, a gather), values from elsewhere are as much a wrong
    # window or a wrong choice as a layout: copy_sources tells them apart by re-running.
    copied = copies.copies_inputs(ctx.inputs_of(o.seed) or [], o.golden)
    moved = None if copied else misplaced.find(o.measured, o.golden, o.cpu)
    if moved is not None and misplaced.convincing(moved):
        tail = _tail_holding(o, moved.where, facts.blocks())
        return [_misplaced_in_tail(o, moved, *tail) if tail else _misplaced_diagnosis(o, moved)]
    eps = float(torch.finfo(o.measured.dtype).eps) if o.measured.is_floating_point() else 0.0
    scale = _scale_factor(a, g, eps)
    if scale is None:
        few = _few_scales_diagnosis(ctx, o, eps)
        rows = None if few is not None else _row_factors(a, g, eps)
        shared = (
            _shared_factor_diagnosis(
                ctx, o, f"each row (along the last dimension) is its golden times a factor of its own ({_spread(rows)})"
            )
            if rows is not None
            else None
        )
        return [d for d in (few, shared) if d is not None]
    # A missing factor is a property of the kernel, not of one input: the other seeds must show the same one.
    others = [
        _scale_factor(x.a, x.g, eps)
        for x in ctx.outputs
        if x.name == o.name and x.seed != o.seed and x.actual is not None and x.actual.shape == x.golden.shape
    ]
    factors = [f for f in others if f is not None]
    if len(factors) < len(others):
        return []
    if any(abs(f - scale) > 1e-3 * abs(scale) for f in factors):  # one factor per input: the data decide it
        shown = ", ".join(f"{f:.4g}" for f in [scale, *factors][:4])
        return [
            _shared_factor_diagnosis(
                ctx, o, f"the output is its golden times one factor that differs between the seeds' inputs ({shown})"
            )
        ]
    named = _named_factor(scale)
    return [
        Diagnosis(
            pattern="formula_error",
            confidence=0.85,
            seed=o.seed,
            output=o.name,
            summary=f"the output is the golden scaled by {scale:.6g}{f' ({named})' if named else ''} (the same factor "
            f"on {len(others) + 1} seed(s), exact up to rounding): a missing, doubled or wrong scale factor",
            evidence={"scale": scale, "seeds_with_same_scale": len(others) + 1, "factor": named},
            suggested_fixes=["fix_formula"],
        )
    ]


def _row_factors(a: torch.Tensor, g: torch.Tensor, eps: float) -> torch.Tensor | None:
    """Per row (slice along the last dimension) s_r with a_r == s_r * g_r up to rounding, where at least
    SHARED_FACTOR_MIN_ROWS of the rows with a nonzero golden have one that is not 1, every other such row is right
    as it is, and the factors are not all one (that is _scale_factor's case); else None."""
    if a.dim() < 2 or a.shape[-1] < 2 or not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(g).all())):
        return None
    x, y = a.reshape(-1, a.shape[-1]).double(), g.reshape(-1, g.shape[-1]).double()
    norm = (y * y).sum(1)
    x, y, norm = x[norm > 0], y[norm > 0], norm[norm > 0]
    if len(norm) < 2:
        return None
    s = (x * y).sum(1) / norm
    floor = 1e-3 * y.abs().amax(1, keepdim=True) + 1e-30
    unscaled = ((x - y).abs() / (y.abs() + floor)).mean(1)
    residual = ((x - s[:, None] * y).abs() / ((s[:, None] * y).abs() + floor * s.abs()[:, None])).mean(1)
    scaled = (residual <= 2 * eps) & (residual * 30 <= unscaled) & ((s - 1).abs() > 1e-3)
    right = unscaled <= 2 * eps
    if not bool((scaled | right).all()) or float(scaled.double().mean()) < T.SHARED_FACTOR_MIN_ROWS:
        return None
    factors = s[scaled]
    return factors if float(factors.max() - factors.min()) > 1e-3 * float(factors.abs().max()) else None


def _spread(factors: torch.Tensor) -> str:
    return f"{float(factors.min()):.4g} .. {float(factors.max()):.4g} over {len(factors)} rows"


def _shared_factor_diagnosis(ctx: RunContext, o: OutputData, shown: str) -> Diagnosis:
    """The output right but for a factor the data decide: a value computed from the data and shared by many
    elements (a norm, a sum, a max, a count) is wrong; the lines that make such values are where to search."""
    lines = reach.shared_value_lines(ctx.source or "")
    where = f"; the lines making such values, searched first: {', '.join(map(str, lines[:8]))}" if lines else ""
    return Diagnosis(
        pattern="formula_error",
        confidence=T.SHARED_FACTOR_CONFIDENCE,
        seed=o.seed,
        output=o.name,
        summary=f"{shown}, exact up to rounding: a value computed from the data and shared by many elements (a norm, "
        f"a sum, a maximum, a count) that the output is divided or multiplied by is made wrongly{where}",
        evidence={"shared_factor": shown, **({"search_lines": lines} if lines else {})},
        suggested_fixes=["fix_formula"],
    )


def _few_scales(a: torch.Tensor, g: torch.Tensor, eps: float) -> list[tuple[float, float]] | None:
    """[(factor, share of the elements)] when the output is the golden times one of a few constant factors (2 to
    FEW_SCALES_MAX), each held exactly (to the output's rounding) by elements of many different golden values,
    at least one factor not 1: a count or divisor that differs between positions. Rounding gives a continuum of
    ratios, and no ratio held by one value alone counts (an output of few distinct values proves nothing)."""
    if eps <= 0 or not nonfinite_agree(a, g):
        return None
    a, g = _finite_pair(a, g)
    keep = g.abs() > 1e-3 * float(g.abs().max())
    if int(keep.sum()) < T.FEW_SCALES_MIN_ELEMENTS:
        return None
    ratio, golden = (a[keep] / g[keep]).double(), g[keep].double()
    order = torch.argsort(ratio)
    ratio, golden = ratio[order], golden[order]
    tolerance = T.FEW_SCALES_ROUNDING * eps
    breaks = torch.nonzero(ratio[1:] - ratio[:-1] > tolerance * ratio[:-1].abs()).flatten() + 1
    bounds = [0, *breaks.tolist(), ratio.numel()]
    groups = sorted(((bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)), key=lambda b: b[0] - b[1])
    main = [(lo, hi) for lo, hi in groups[: T.FEW_SCALES_MAX] if hi - lo >= T.FEW_SCALES_MIN_SHARE * ratio.numel()]
    covered = sum(hi - lo for lo, hi in main)
    if len(main) < 2 or covered < T.FEW_SCALES_COVER * ratio.numel():
        return None
    factors = [(float(ratio[lo:hi].median()), (hi - lo) / ratio.numel()) for lo, hi in main]
    if all(abs(f - 1) <= tolerance for f, _ in factors):
        return None
    if any(int(torch.unique(golden[lo:hi]).numel()) < T.FEW_SCALES_MIN_VALUES for lo, hi in main):
        return None
    return sorted(factors)


def _few_scales_diagnosis(ctx: RunContext, o: OutputData, eps: float) -> Diagnosis | None:
    factors = _few_scales(o.a, o.g, eps)
    if factors is None:
        return None
    tolerance = T.FEW_SCALES_ROUNDING * eps
    for x in ctx.outputs:  # a property of the kernel: the other seeds show the same factors
        if x.name != o.name or x.seed == o.seed or x.actual is None or x.actual.shape != x.golden.shape:
            continue
        other = _few_scales(x.a, x.g, eps)
        if other is None or len(other) != len(factors):
            return None
        if any(abs(f - h) > tolerance * abs(f) for (f, _), (h, _) in zip(factors, other, strict=True)):
            return None
    shown = ", ".join(
        f"{f:.6g}{f' ({named})' if (named := _named_ratio(f)) else ''} on {share:.0%}" for f, share in factors
    )
    return Diagnosis(
        pattern="formula_error",
        confidence=0.85,
        seed=o.seed,
        output=o.name,
        summary=f"the output is the golden times one of {len(factors)} constant factors ({shown} of the elements), "
        "each exact up to rounding over many different values: a count, divisor or scale that differs between "
        "positions (a window's length, a per-row factor) is wrong; rounding gives no such steps",
        evidence={"factors": [f for f, _ in factors], "shares": [round(s, 4) for _, s in factors]},
        suggested_fixes=["fix_formula"],
    )


def _named_ratio(value: float) -> str | None:
    """The factor as p/q with q up to 256, when it is one to 1e-5."""
    for q in range(2, 257):
        p = round(value * q)
        if p and abs(p / q - value) <= 1e-5 * abs(value) and math.gcd(p, q) == 1:
            return f"{p}/{q}"
    return None


def _tail_holding(o: OutputData, wrong: torch.Tensor, blocks: list[int]) -> tuple[str, int] | None:
    """(axis, block) of a last partial block that holds the wrong outputs, if one does."""
    for axis, block, tail in tail_views(o, blocks):
        flat = tail.reshape(-1)
        if flat.float().mean() <= 0.5 and float((wrong & flat).sum()) >= T.TAIL_SHARE * float(wrong.sum()):
            return axis, block
    return None


def _misplaced_in_tail(o: OutputData, moved: misplaced.Misplaced, axis: str, block: int) -> Diagnosis:
    return Diagnosis(
        pattern="boundary_mask_error",
        confidence=0.9,
        seed=o.seed,
        output=o.name,
        summary=f"the last partial block of {block} along the {axis} holds values of other positions "
        f"({moved.matched:.0%} of its {moved.wrong} wrong outputs are golden values from elsewhere): its loads or "
        "stores are shifted (a block moved back to stay in bounds, a clamped index): mask the tail instead",
        evidence={"wrong_outputs": moved.wrong, "matched_elsewhere": round(moved.matched, 4), "block": block},
        suggested_fixes=["boundary_mask"],
        tested="proven",
        location=Location(description=f"the last partial block of {block} along the {axis}", tile=[block]),
    )


def _misplaced_diagnosis(o: OutputData, moved: misplaced.Misplaced) -> Diagnosis:
    shape = tuple(o.measured.shape)
    where = "; ".join(
        f"output {flat_index(i, shape)} holds the golden's {flat_index(j, shape)}" for i, j in moved.examples
    )
    how = (
        "exactly the golden's values at those positions, reordered"
        if moved.permutation
        else "values the golden has elsewhere (some golden values appear twice, others not at all)"
    )
    return Diagnosis(
        pattern="layout_mismatch",
        confidence=0.9,
        seed=o.seed,
        output=o.name,
        summary=f"right values in the wrong places: {moved.matched:.0%} of the {moved.wrong} wrong outputs are "
        f"{how} (by chance {moved.chance:.0%} would be); e.g. {where}: an index, stride or layout that moves "
        "data (a transposed tile, swapped sub-indices, a stride of another dimension)",
        evidence={
            "wrong_outputs": moved.wrong,
            "matched_elsewhere": round(moved.matched, 4),
            "matched_by_chance": round(moved.chance, 4),
            "permutation": moved.permutation,
        },
        suggested_fixes=["fix_layout"],
        tested="proven",
        location=Location(
            description="outputs holding the golden's values of other positions",
            indices=[flat_index(i, shape) for i, _ in moved.examples],
        ),
    )


def _scalar_scale(ctx: RunContext, o: OutputData) -> tuple[float, int, float, float] | None:
    """A single-number output (a loss, a mean): one element fits any scale, so the factor must be
    the same on every seed, to within the output's rounding, while the golden itself changes from
    seed to seed. A logic error that drops or adds part of a sum (a skipped tail) gives a ratio
    that moves with the data by ~1/sqrt(terms), orders above the rounding level of fp32.
    Returns (scale, seeds, spread, rounding level) or None."""
    outs = [
        x
        for x in ctx.outputs
        if x.name == o.name
        and x.actual is not None
        and x.actual.shape == x.golden.shape
        and x.actual.numel() == o.a.numel()
    ]
    if len(outs) < T.SCALAR_SCALE_MIN_SEEDS or not o.measured.is_floating_point():
        return None
    ratios, goldens, level = [], [], float(torch.finfo(o.measured.dtype).eps)
    for x in outs:
        a, g = x.a.reshape(-1), x.g.reshape(-1)
        if not (bool(torch.isfinite(a).all()) and bool(torch.isfinite(g).all())) or bool((g == 0).any()):
            return None
        ratios += (a / g).tolist()
        goldens += g.tolist()
        if x.cpu is not None and x.cpu.shape == x.golden.shape:
            c = x.cpu.to(torch.float64).reshape(-1)
            if not bool(torch.isfinite(c).all()):
                return None
            level = max(level, float(((c - g).abs() / g.abs()).max()))
    scale = sorted(ratios)[len(ratios) // 2]
    if scale == 0:
        return None
    spread = max(abs(r - scale) for r in ratios) / abs(scale)
    tolerance = T.SCALAR_SCALE_SPREAD_FACTOR * level
    golden_moves = (max(goldens) - min(goldens)) / max(abs(v) for v in goldens)
    if (
        level > T.SCALAR_SCALE_MAX_ROUNDING
        or spread > tolerance
        or abs(scale - 1) <= T.SCALAR_SCALE_MIN_OFFSET_FACTOR * level
        or golden_moves <= T.SCALAR_SCALE_MIN_OFFSET_FACTOR * level
    ):
        return None
    return scale, len(outs), spread, level


def _scalar_scale_diagnosis(ctx: RunContext, o: OutputData) -> Diagnosis | None:
    found = _scalar_scale(ctx, o)
    if found is None:
        return None
    scale, seeds, spread, level = found
    named = _named_factor(scale)
    return Diagnosis(
        pattern="formula_error",
        confidence=0.85,
        seed=o.seed,
        output=o.name,
        summary=f"the single-number output is the golden times {scale:.6g}{f' ({named})' if named else ''} on all "
        f"{seeds} seeds (the ratio varies by {spread:.2g}, within the rounding level {level:.2g}, while the golden "
        "itself changes with the data): a missing, doubled or wrong scale factor (a divisor such as the count of a "
        "mean), not a data-dependent error",
        evidence={"scale": scale, "seeds_with_same_scale": seeds, "factor": named, "ratio_spread": spread},
        suggested_fixes=["fix_formula"],
    )


def _named_factor(scale: float) -> str | None:
    """The scale as a simple closed form (an integer, its square root, or their inverses), when it is one."""
    for value, inverse in ((scale, ""), (1 / scale, "1/")):
        for n in range(2, 4097):
            if math.isclose(abs(value), n, rel_tol=1e-3):
                return f"{'-' if value < 0 else ''}{inverse}{n}"
            if math.isclose(abs(value), math.sqrt(n), rel_tol=1e-3) and math.isqrt(n) ** 2 != n:
                return f"{'-' if value < 0 else ''}{inverse}sqrt({n})"
    return None


def _scale_factor(a: torch.Tensor, g: torch.Tensor, eps: float) -> float | None:
    """s when a == s * g up to rounding (the residual at the dtype's rounding level and far below
    the unscaled error), else None. Non-finite elements must agree; the finite ones are measured."""
    if not nonfinite_agree(a, g):
        return None
    a, g = _finite_pair(a, g)
    denominator = float((g * g).sum())
    if denominator <= 0:
        return None
    scale = float((a * g).sum()) / denominator
    if scale == 0 or not math.isfinite(scale):
        return None
    floor = 1e-3 * float(g.abs().max()) + 1e-30
    unscaled = float(((a - g).abs() / (g.abs() + floor)).mean())
    residual = float(((a - scale * g).abs() / (scale * g).abs().add(floor * abs(scale))).mean())
    if abs(scale - 1) <= 1e-3 or residual > 2 * eps or residual * 30 > unscaled:
        return None
    return scale
