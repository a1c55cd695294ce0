"""Integer outputs: counts off by a tail, rounding, indices off by a structure of their own."""

from __future__ import annotations

import math

import torch

from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors.common import MAX_INDICES, _lines, element_indices
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Evidence, Location
from tools.repair.source import SourceFacts


def _counted_inputs(ctx: RunContext, o: OutputData) -> list[tuple[int, ...]]:
    """Shapes of the inputs an integer output could be a count of: its golden totals one of them
    (a histogram or bincount counts every element once)."""
    stored = ctx.inputs_of(o.seed) or ctx.inputs
    total = int(o.golden.to(torch.int64).sum())
    return [tuple(t.shape) for t in stored if isinstance(t, torch.Tensor) and t.numel() == total and t.numel() > 1]


def _integer_pair(o: OutputData) -> tuple[torch.Tensor, torch.Tensor] | None:
    """Measured and golden as int64 when both are integer outputs of one shape (indices, counts)."""
    a, g = o.measured, o.golden
    if a.is_floating_point() or a.dtype == torch.bool or g.is_floating_point() or a.shape != g.shape:
        return None
    return a.to(torch.int64), g.to(torch.int64)


def _one_xor(got: torch.Tensor, want: torch.Tensor) -> int | None:
    """The one constant every wrong integer is the golden XORed with, where the wrong ones hold several values
    (a single wrong value relates to the golden by any XOR)."""
    flipped = torch.bitwise_xor(got, want)
    if got.numel() < 2 or int(torch.unique(want).numel()) < 2 or not bool((flipped == flipped[0]).all()):
        return None
    return int(flipped[0]) or None


def _unreduced(g: torch.Tensor, got: torch.Tensor, want: torch.Tensor, step: int) -> bool:
    """The wrong integers are the golden plus multiples of `step`, every golden value lies in 0..step-1 and they
    spread over that range (a residue mod `step`), and the wrong ones exceed it: a `% step` left out."""
    if step < 3 or int(g.min()) < 0 or int(g.max()) >= step or int(g.max()) < step // 2:
        return False
    return bool((got >= step).all()) and bool((got > want).all()) and int(torch.unique(want).numel()) >= 2


def _tilings(shape: tuple[int, ...], block: int) -> list[tuple[str, int, int]]:
    """(what, partial blocks, elements in each) of a BLOCK tiling of the flat index and of the last axis."""
    n = math.prod(shape)
    found = [("the flat index", 1, n % block)]
    if len(shape) >= 2 and shape[-1] % block:
        found.append((f"each of the {n // shape[-1]} rows", n // shape[-1], shape[-1] % block))
    return [(what, count, tail) for what, count, tail in found if tail]


@detector(
    "integer_counts",
    ("boundary_mask_error", "formula_error"),
    only_failed=True,
    suppresses=("integer_rounding", "integer_index"),
)
def integer_counts(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    """Integer counts (the golden totals an input's size n, every element counted once) whose total is
    off by exactly the tail of a BLOCK tiling: short by n % BLOCK (the last partial block never
    processed: a floored grid or loop bound), or over by the padding lanes BLOCK - n % BLOCK (the
    masked-off lanes of the last block counted, e.g. an atomic without the mask). An exact match of the
    total to one of these two numbers is the evidence; the source's constructs name the line. A count
    short everywhere by another amount, where the source increments a loaded address with a load and a
    store (no atomic), is a lost update."""
    pair = _integer_pair(o)
    if pair is None:
        return []
    a, g = pair
    if o.unwritten().any() or int(g.min()) < 0:
        return []
    sizes = _counted_inputs(ctx, o)
    wrong = a != g
    if not sizes or not bool(wrong.any()):
        return []
    shape = sizes[0]
    n = math.prod(shape)
    shortfall = int(g.sum()) - int(a.sum())
    short_only = bool((a <= g).all())
    over_only = bool((a >= g).all())
    location = Location(description="wrong counts", indices=element_indices(wrong, tuple(a.shape)))
    evidence: Evidence = {
        "counted_elements": n,
        "counted_total": int(a.sum()),
        "shortfall": shortfall,
        "wrong_counts": int(wrong.sum()),
        "block_sizes": facts.blocks(),
    }
    for block in facts.blocks():
        for what, partial, tail in _tilings(shape, block) if block > 1 else []:
            padding = partial * (block - tail)
            each = f" ({tail} each)" if partial > 1 else ""
            if shortfall == partial * tail and short_only:
                grid = _lines(facts.floor_division_grid)
                return [
                    Diagnosis(
                        pattern="boundary_mask_error",
                        confidence=0.9 if facts.floor_division_grid else 0.8,
                        seed=o.seed,
                        output=o.name,
                        summary=f"the counts total {int(a.sum())} of {n}: exactly the {partial * tail} elements of the "
                        f"last partial block of {block} along {what}{each} were never counted: the grid (or loop) "
                        "stops at the last full block"
                        + (
                            f" (floor-division grid at {grid}: use triton.cdiv)"
                            if grid
                            else "; size it with triton.cdiv"
                        )
                        + " and mask the tail",
                        evidence=evidence | {"tail_elements": partial * tail, "floor_division_grid": grid or None},
                        suggested_fixes=["boundary_mask"],
                        location=location,
                    )
                ]
            if -shortfall == padding and over_only:
                atomics = _lines(facts.unmasked_atomics)
                bins = torch.nonzero(wrong.reshape(-1)).flatten()[:MAX_INDICES].tolist()
                return [
                    Diagnosis(
                        pattern="boundary_mask_error",
                        confidence=0.9 if facts.unmasked_atomics else 0.8,
                        seed=o.seed,
                        output=o.name,
                        summary=f"the counts total {int(a.sum())} for {n} elements: exactly the {padding} masked-off "
                        f"lanes of the last partial block of {block} along {what}"
                        f"{f' ({block - tail} each)' if partial > 1 else ''} were counted "
                        f"too (into flat output index {', '.join(map(str, bins))}): "
                        + (f"the atomic at {atomics} has no mask" if atomics else "an update of the tail is not masked")
                        + "; give it the load's mask",
                        evidence=evidence | {"padding_lanes": padding, "unmasked_atomics": atomics or None},
                        suggested_fixes=["boundary_mask"],
                        location=location,
                    )
                ]
    if shortfall > 0 and short_only and facts.gather_read_modify_write and not facts.atomic_add:
        lines = _lines(facts.gather_read_modify_write)
        return [
            Diagnosis(
                pattern="formula_error",
                confidence=0.8,
                seed=o.seed,
                output=o.name,
                summary=f"{int(wrong.sum())} counts are short ({shortfall} of {n} increments lost, none extra) and the "
                f"kernel increments a loaded address with a tl.load and a tl.store ({lines}), not an atomic: lanes "
                "(and programs) that hit the same bin read the same old count and overwrite each other's increment; "
                "use tl.atomic_add",
                evidence=evidence | {"read_modify_write": lines},
                suggested_fixes=["fix_formula"],
                location=location,
            )
        ]
    return []


@detector("integer_rounding", ("rounding_mode_bias",), only_failed=True, proof=True)
def integer_rounding(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    """Integer outputs off by one step, every step toward zero: a truncating float -> int cast
    where the reference rounds (to nearest even, as torch.round)."""
    if (
        o.actual is None
        or o.actual.is_floating_point()
        or o.actual.dtype == torch.bool
        or o.actual.shape != o.golden.shape
    ):
        return []
    a, g = o.actual.to(torch.int64), o.golden.to(torch.float64).round().to(torch.int64)
    diff = a - g
    wrong = diff != 0
    count = int(wrong.sum())
    if count == 0:
        return []
    toward_zero = wrong & (a.abs() < g.abs()) & ((a == 0) | (torch.sign(a) == torch.sign(g)))
    share = int(toward_zero.sum()) / count
    one_step = bool((diff[wrong].abs() <= 1).all())
    if share < 0.95 or not one_step:
        return []
    casts = _lines(facts.float_to_int_cast)
    if not casts:  # no float -> int conversion in the kernel: a constant step is its arithmetic, not a rounding
        return []
    return [
        Diagnosis(
            pattern="rounding_mode_bias",
            confidence=0.93,
            seed=o.seed,
            output=o.name,
            summary=f"{count} integer outputs are one step toward zero from the golden "
            f"({share:.0%} of the differences): "
            "the float -> int cast truncates where the reference rounds to nearest" + (f" ({casts})" if casts else ""),
            evidence={
                "differing": count,
                "toward_zero_fraction": share,
                "max_abs_difference": int(diff.abs().max()),
                "float_to_int_casts": casts,
            },
            suggested_fixes=["cast_round_mode_rint"],
            location=Location(
                description="integer outputs truncated toward zero", indices=element_indices(wrong, tuple(a.shape))
            ),
        )
    ]


def _input_dims(ctx: RunContext) -> list[int]:
    return sorted({int(d) for t in ctx.inputs if isinstance(t, torch.Tensor) for d in t.shape if d > 1})


def _indexed_values(x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor | None:
    """x's values at `index` along `dim`: an index output one rank below x (argmin, argmax) or of x's own
    rank (argsort, topk); None where the shapes do not line up or an index is out of range."""
    if index.numel() and (int(index.min()) < 0 or int(index.max()) >= x.shape[dim]):
        return None
    if x.dim() == index.dim() + 1 and tuple(x.shape[:dim] + x.shape[dim + 1 :]) == tuple(index.shape):
        return x.gather(dim, index.long().unsqueeze(dim)).squeeze(dim)
    others = lambda shape: tuple(shape[:dim] + shape[dim + 1 :])  # noqa: E731
    if x.dim() == index.dim() and x.shape[dim] > 1 and others(x.shape) == others(index.shape):
        return x.gather(dim, index.long())
    return None


_TIE_ADVICE = {
    "a later index every time": "the reference takes the first occurrence (compare with <, not <=, when merging "
    "chunks, and take the smallest index among equal values within a chunk)",
    "an earlier index every time": "the reference takes a later occurrence among equal values",
    "both ways": "break ties among equal values as the reference does",
}


def _tie_break(inputs: list, a: torch.Tensor, g: torch.Tensor, wrong: torch.Tensor) -> tuple[int, int, str] | None:
    """(dim, input number, which way) where the golden indexes an input along `dim` (an argmin, argmax or
    sort) and every wrong index points at an element of the same value (a tie): None otherwise."""
    for number, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor) or x.dim() == 0 or x.is_complex():
            continue
        for dim in range(x.dim()):
            picked, wanted = _indexed_values(x, dim, a), _indexed_values(x, dim, g)
            if picked is None or wanted is None or not bool((picked[wrong] == wanted[wrong]).all()):
                continue
            later, earlier = bool((a[wrong] > g[wrong]).all()), bool((a[wrong] < g[wrong]).all())
            way = "a later index every time" if later else "an earlier index every time" if earlier else "both ways"
            return dim, number, way
    return None


def _wrapped_bits(step: int, dtype: torch.dtype) -> int | None:
    """The width (16 or 32 bits) of a narrower integer type the output's errors are whole multiples of the
    range of: every wrong element off by k * 2^bits is a wrap of an intermediate of that width, not an
    index error (no index arithmetic is off by 65536 everywhere by accident)."""
    width = torch.iinfo(dtype).bits if not dtype.is_floating_point and dtype != torch.bool else 0
    return next((bits for bits in (32, 16) if bits < width and step % (1 << bits) == 0), None)


@detector("integer_index", ("boundary_mask_error", "formula_error", "inf_overflow"), only_failed=True)
def integer_index(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    """Integer outputs (indices, counts) wrong by a structure of their own: pointing past the
    input dimension every golden value stays inside, or off by one constant / multiples of one
    block size (an index that omits its block start or adds a stray offset)."""
    pair = _integer_pair(o)
    if pair is None:
        return []
    a, g = pair
    poison = o.unwritten()
    wrong = (a != g) & ~poison if poison.numel() else a != g
    count = int(wrong.sum())
    if count == 0:
        return []
    got, want = a[wrong], g[wrong]
    diff = got - want
    common: Evidence = {
        "differing": count,
        "total": a.numel(),
        "min_difference": int(diff.min()),
        "max_difference": int(diff.max()),
    }
    location = Location(description="wrong integer outputs", indices=element_indices(wrong, tuple(a.shape)))
    tie = _tie_break(ctx.inputs_of(o.seed) or [], a, g, wrong)
    if tie is not None:
        return [
            Diagnosis(
                pattern="formula_error",
                confidence=0.9,
                seed=o.seed,
                output=o.name,
                summary=f"every wrong index ({count} of {a.numel()}) points at an element equal to the one the "
                f"reference picks, along dimension {tie[0]} of input {tie[1]}: a tie broken the other way ({tie[2]}); "
                + _TIE_ADVICE[tie[2]],
                evidence=common | {"dimension": tie[0], "input": tie[1], "ties": tie[2]},
                suggested_fixes=["fix_formula"],
                location=location,
                tested="proven",
            )
        ]
    bound = next((d for d in _input_dims(ctx) if d > int(g.max())), None)
    if int(g.min()) >= 0 and bound is not None and bool(((got >= bound) | (got < 0)).all()):
        return [
            Diagnosis(
                pattern="boundary_mask_error",
                confidence=0.85,
                seed=o.seed,
                output=o.name,
                summary=f"every wrong index ({count} of {a.numel()}) lies outside 0..{bound - 1}, the input dimension "
                f"of {bound} that every golden value stays inside (wrong ones {int(got.min())}..{int(got.max())}): "
                "masked-off lanes past the end took part (a masked load's `other` that wins the reduction, e.g. "
                "0 instead of -inf for a max) or the index is not bounded by the mask",
                evidence=common | {"dimension": bound, "wrong_min": int(got.min()), "wrong_max": int(got.max())},
                suggested_fixes=["boundary_mask"],
                location=location,
            )
        ]
    step = math.gcd(*(abs(int(d)) for d in torch.unique(diff)))
    wrap = _wrapped_bits(step, o.measured.dtype)
    if wrap is not None:
        return [
            Diagnosis(
                pattern="inf_overflow",
                confidence=0.9,
                seed=o.seed,
                output=o.name,
                summary=f"{count} of {a.numel()} integer outputs differ from the golden by multiples of 2^{wrap} "
                f"({int(diff.min())}..{int(diff.max())}): an intermediate formed in int{wrap} wrapped past its "
                f"range; form it in int64 (`.to(tl.int64)` on the operands before the product / sum)",
                evidence=common | {"multiple_of": step, "wrapped_bits": wrap},
                suggested_fixes=["fp32_accumulator"],
                location=location,
            )
        ]
    if step not in facts.blocks() and _unreduced(g, got, want, step):  # a block's multiple: its start, below
        return [
            Diagnosis(
                pattern="formula_error",
                confidence=0.85,
                seed=o.seed,
                output=o.name,
                summary=f"{count} of {a.numel()} integer outputs are the golden plus multiples of {step} (every golden "
                f"value lies in 0..{step - 1}, every wrong one is congruent to it mod {step}): a reduction "
                f"`% {step}` left out (or applied too late, after the value grew)",
                evidence=common | {"modulus": step},
                suggested_fixes=["fix_formula"],
                location=location,
            )
        ]
    constant = int(diff.min()) == int(diff.max())
    flipped = _one_xor(got, want)
    if flipped is not None and not constant:
        return [
            Diagnosis(
                pattern="formula_error",
                confidence=0.85,
                seed=o.seed,
                output=o.name,
                summary=f"{count} of {a.numel()} integer outputs are the golden XOR {flipped:#x} on every wrong "
                f"element (the same {flipped.bit_count()} bit(s) flipped): a complement or mask that the stored value "
                "lacks or has once too often (a final `^ 0xFFFFFFFF`), or a constant XORed in wrongly (an initial "
                "value)",
                evidence=common | {"xor": flipped},
                suggested_fixes=["fix_formula"],
                location=location,
            )
        ]
    blocks = facts.blocks()
    if constant:
        what = f"off by the constant {int(diff[0]):+d} on every wrong element"
    elif step >= 2 and (step in blocks or any(step % b == 0 for b in blocks) or (step & (step - 1)) == 0):
        what = f"actual - golden is a multiple of {step} on every wrong element ({int(diff.min())}..{int(diff.max())})"
    else:
        return []
    tile = step if not constant and step in blocks else None
    return [
        Diagnosis(
            pattern="formula_error",
            confidence=0.85,
            seed=o.seed,
            output=o.name,
            # what the outputs are (indices or values) the run does not say: both readings, neither asserted
            summary=f"{count} of {a.numel()} integer outputs are {what}: "
            + (
                "an index or a value formula adds a stray constant (an offset, a rounding term)"
                if constant
                else "an index that omits or misplaces a block start (start + lane offset) gives this, or a value "
                "formula whose slip is a multiple of it"
            )
            + "; compare it with the reference",
            evidence=common | {"multiple_of": step, "constant": constant, "block_sizes": blocks},
            suggested_fixes=["fix_formula"],
            location=location.model_copy(update={"tile": [tile] if tile else None}),
        )
    ]
