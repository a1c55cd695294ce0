"""Right values in the wrong places: do the wrong outputs hold values the golden has elsewhere?

A store or load that permutes (a transposed tile, swapped sub-indices, a stride of the wrong dimension,
a batch offset that reads another sample) produces outputs that are correct values of the op, put at
other positions. This is tested on the values alone, whatever the permutation: each wrong output is
looked up among all the golden's values, as the output dtype stores them, within the rounding a
same-precision computation shows. A value can sit near some golden value by chance where the golden is
dense; the chance is measured on the same data (the wrong values displaced by 1.6-12.5%, as a formula
error would), and the claim is made only where the real values match far more often than the displaced,
and than the same values reflected about their own golden (2 g - a): where the golden lies on a lattice (a
quantised output, k * s), a rounding step lands on a golden value whichever way it goes.
Where the golden is too dense for that (25k fp16 values hold most codes near 1), the wrong outputs must be
exactly the golden's values at those positions, reordered, and the same values nudged just past rounding
must not pass for a reordering.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tools import thresholds as T


@dataclass(frozen=True)
class Misplaced:
    wrong: int  # outputs beyond rounding of the golden at their own position
    matched: float  # share of them within rounding of a golden value at another position
    chance: float  # share of the same values, displaced, that match anyway
    mirrored: float  # share of them reflected about their own golden (2 g - a) that match anyway: a lattice
    permutation: bool  # the wrong outputs hold exactly the golden's values at those positions, reordered
    telling_permutation: bool  # ... and a nudge just past rounding would not be taken for one
    examples: list[tuple[int, int]]  # (flat output position, flat golden position holding its value)
    where: torch.Tensor  # the wrong outputs, a bool mask over the flat output


def _ulp(v: torch.Tensor, dtype: torch.dtype, floor: float) -> torch.Tensor:
    info = torch.finfo(dtype)
    return info.eps * v.abs().clamp(min=max(floor, info.tiny))


def _nearest_distance(values: torch.Tensor, table: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For each value, the distance to the nearest entry of the sorted `table`, and that entry's index."""
    right = torch.searchsorted(table, values).clamp(max=table.numel() - 1)
    left = (right - 1).clamp(min=0)
    d_left, d_right = (values - table[left]).abs(), (values - table[right]).abs()
    use_left = d_left < d_right
    return torch.where(use_left, d_left, d_right), torch.where(use_left, left, right)


def find(actual: torch.Tensor, golden: torch.Tensor, cpu: torch.Tensor | None) -> Misplaced | None:
    """`actual` in its output dtype, `golden` (float64), `cpu` the same-precision control or None.
    None when there are too few wrong outputs, or too few distinct ones, to tell (see thresholds)."""
    dtype = actual.dtype
    if not dtype.is_floating_point or actual.shape != golden.shape or actual.numel() < T.MISPLACED_MIN_WRONG:
        return None
    if actual.numel() > T.VALUE_LOOKUP_MAX_ELEMENTS:
        return None  # too large to sort here: no claim
    a, g = actual.reshape(-1).to(torch.float64), golden.reshape(-1).to(torch.float64)
    stored = g.to(dtype).to(torch.float64)  # the golden as the output dtype holds it
    finite = torch.isfinite(a) & torch.isfinite(stored)
    if int(finite.sum()) < T.MISPLACED_MIN_WRONG:
        return None
    if stored[finite].unique().numel() < T.MISPLACED_MIN_GOLDEN_DISTINCT_SHARE * int(finite.sum()):
        return None  # a golden of few values (products of small codes and a few scales): any mix-up lands on one
    floor = T.MISPLACED_ABS_FLOOR * float(stored[finite].abs().max())
    allowance = T.MISPLACED_MIN_ULPS
    if cpu is not None and cpu.shape == golden.shape:
        c = cpu.reshape(-1).to(torch.float64)
        both = finite & torch.isfinite(c)
        if bool(both.any()):
            ulps = (c[both] - stored[both]).abs() / _ulp(stored[both], dtype, floor)
            q99 = float(ulps.kthvalue(max(1, int(0.99 * ulps.numel()))).values)
            allowance = max(allowance, T.MISPLACED_ULP_FACTOR * q99)
    wrong = finite & ((a - stored).abs() > allowance * _ulp(stored, dtype, floor))
    n_wrong = int(wrong.sum())
    values = a[wrong]
    if n_wrong < T.MISPLACED_MIN_WRONG or values.unique().numel() < T.MISPLACED_MIN_DISTINCT:
        return None
    table, order = torch.sort(stored[finite])
    distance, nearest = _nearest_distance(values, table)
    matched = distance <= allowance * _ulp(values, dtype, floor)
    generator = torch.Generator().manual_seed(0)
    shift = torch.empty(n_wrong, dtype=torch.float64).uniform_(2.0**-6, 2.0**-3, generator=generator)
    sign = torch.randint(0, 2, (n_wrong,), generator=generator).to(torch.float64) * 2 - 1
    displaced = (values * (1 + sign * shift)).to(dtype).to(torch.float64)
    chance_distance, _ = _nearest_distance(displaced, table)
    chance = float((chance_distance <= allowance * _ulp(displaced, dtype, floor)).double().mean())
    ordered_golden = torch.sort(stored[wrong]).values
    reflected = (2 * stored[wrong] - values).to(dtype).to(torch.float64)
    reflected_distance, _ = _nearest_distance(reflected, table)
    mirrored = float((reflected_distance <= allowance * _ulp(reflected, dtype, floor)).double().mean())

    def reordered(candidate: torch.Tensor) -> bool:
        ordered = torch.sort(candidate).values
        close = (ordered - ordered_golden).abs() <= allowance * _ulp(ordered_golden, dtype, floor)
        return float(close.double().mean()) >= T.MISPLACED_MIN_MATCHED_REORDERED

    # The same values moved just past the rounding allowance, in random directions: where sorting absorbs
    # that (a dense golden), a reordering is no evidence either.
    nudged = (values + sign * (allowance + 1) * _ulp(values, dtype, floor)).to(dtype).to(torch.float64)
    permutation, permutation_by_chance = reordered(values), reordered(nudged)
    positions = torch.nonzero(finite).flatten()
    wrong_positions = torch.nonzero(wrong).flatten()
    examples = [
        (int(wrong_positions[i]), int(positions[order[nearest[i]]]))
        for i in torch.nonzero(matched).flatten()[:3].tolist()
    ]
    return Misplaced(
        n_wrong,
        float(matched.double().mean()),
        chance,
        mirrored,
        permutation,
        permutation and not permutation_by_chance,
        examples,
        wrong,
    )


def convincing(found: Misplaced | None) -> bool:
    """Matched far beyond chance (displaced or reflected values: not a lattice of golden values), or (where the
    golden is too dense for that: fp16) exactly reordered."""
    if found is None:
        return False
    beyond_chance = (
        found.matched >= T.MISPLACED_MIN_MATCHED and max(found.chance, found.mirrored) <= T.MISPLACED_MAX_CHANCE
    )
    return beyond_chance or found.telling_permutation
