"""Failure-pattern detectors. Each looks at one kind of evidence and returns Diagnoses.

Evidence comes from the stored run: the comparator's results, the checks, the error, the
output tensors against the golden and the CPU control (NaN/Inf positions, never-written
elements, where errors sit in the 2-D view, their sign, how they compare to the CPU's), the
candidate's source (syntactic facts) and, for matmul-like ops, the precision fingerprint.
"""

from __future__ import annotations

import math

import torch

from tools import thresholds as T
from tools.diagnosis import copies, misplaced
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Evidence, FixId, Location
from tools.repair import allocation
from tools.repair.source import SourceFacts

MAX_INDICES = 5


def _num(value) -> float:
    """A metric as a float: the models carry 'inf' / 'nan' as strings for JSON."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def element_indices(mask: torch.Tensor, shape) -> list[list[int]]:
    return [flat_index(i, shape) for i in torch.nonzero(mask.reshape(-1)).flatten()[:MAX_INDICES].tolist()]


def flat_index(flat: int, shape) -> list[int]:
    """The multi-index of position `flat` of a contiguous tensor of `shape`."""
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return list(reversed(index))


def _lines(lines: list[int]) -> str:
    return ", ".join(f"line {n}" for n in sorted(set(lines))[:4])


def _tile_of(start: int | None, block_sizes: list[int]) -> int | None:
    """The block size a boundary at `start` lines up with: the largest of the source's BLOCK
    constants dividing it, else its largest power-of-two divisor."""
    if start is None or start <= 0:
        return None
    fitting = [b for b in block_sizes if b > 1 and start % b == 0]
    if fitting:
        return max(fitting) if max(fitting) < start else min(fitting)
    tile = start & -start
    return min(tile, 256) if tile >= 8 else None


# --- verdicts that produced no numbers -------------------------------------------------------


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


# --- structure -------------------------------------------------------------------------------


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


# --- never written, NaN, Inf, zeros ----------------------------------------------------------


def _tail_start(full: torch.Tensor) -> int | None:
    """Index from which every entry is True to the end (a tail of fully unwritten rows/cols)."""
    if not full.numel() or not bool(full[-1]):
        return None
    written = torch.nonzero(~full).flatten()
    return int(written.max()) + 1 if written.numel() else 0


@detector("out_of_bounds_write", ("boundary_mask_error",), scope="run", proof=True)
def out_of_bounds_write(ctx: RunContext, facts: SourceFacts) -> list[Diagnosis]:
    writes = ctx.result.checks.out_of_bounds_writes
    if not writes:
        return []
    w = writes[0]
    stores = _lines(facts.unmasked_stores) if facts.unmasked_stores else None
    return [
        Diagnosis(
            pattern="boundary_mask_error",
            confidence=0.97,
            seed=w.seed,
            summary=f"a store wrote {w.extent()} of a {tuple(w.shape)} output "
            "allocation (caught in the guard margin around it): a tl.store without a mask for the last partial block"
            + (f" (unmasked tl.store at {stores})" if stores else ""),
            evidence={"out_of_bounds_writes": [x.model_dump() for x in writes[:4]], "unmasked_stores": stores},
            suggested_fixes=["boundary_mask"],
            location=Location(
                description=f"bytes written past the allocation: {w.bytes_after} after its end, "
                f"{w.bytes_before} before its start"
            ),
        )
    ]


@detector("out_of_bounds_read", ("boundary_mask_error",), scope="run")
def out_of_bounds_read(ctx: RunContext, facts: SourceFacts) -> list[Diagnosis]:
    """Loads recorded reading the guard margins (cpu interpreter). The read itself is proven; it
    explains the run only when nothing else failed: a failure elsewhere stays the primary, and the
    margin experiments decide whether the read fed it."""
    reads = ctx.result.checks.out_of_bounds_reads
    if not reads:
        return []
    r = reads[0]
    loads = _lines(r.lines) if r.lines else _lines(facts.tail_loads) if facts.tail_loads else None
    where = r.extent()
    passed = ctx.result.verdict == "pass"
    diagnosis = Diagnosis(
        pattern="boundary_mask_error",
        confidence=0.9 if passed else 0.35,
        seed=r.seed,
        summary=f"a load read {where} of {r.tensor} (shape {tuple(r.shape)}): memory outside every tensor the "
        "kernel was given (the guard margin around it)"
        + (f"; unmasked or partially masked tl.load at {loads}" if loads else "")
        + (
            ". The output is right only because those lanes are not stored; on a GPU the load reads other memory "
            "or faults: mask it (mask=offs < n, with an `other=` that changes nothing: 0 for a sum, -inf for a max)"
            if passed
            else ". It may or may not feed the failure"
        ),
        evidence={"out_of_bounds_reads": [x.model_dump() for x in reads[:4]], "unmasked_loads": loads},
        suggested_fixes=["boundary_mask"],
        location=ctx.line_location(r.lines[0], f"{where} of {r.tensor}", r.tensor) if r.lines else None,
    )
    if diagnosis.location is None:
        diagnosis.location = Location(description=f"{where} of {r.tensor}")
    if passed:
        diagnosis.tested = "proven"
    return [diagnosis]


def _leading_slices_unwritten(mask: torch.Tensor) -> tuple[int, int] | None:
    """(first, size) when, in an output of 3 or more dimensions, exactly the slices first.. of
    dimension 0 are unwritten, each whole: not a partial tile (a tiling's tail is shorter than a
    slice of the inner dimensions), but a grid axis missing."""
    if mask.dim() < 3 or mask.shape[0] < 2:
        return None
    per_slice = mask.reshape(mask.shape[0], -1)
    full, empty = per_slice.all(dim=1), ~per_slice.any(dim=1)
    if not bool((full | empty).all()) or bool(full[0]) or not bool(full[-1]):
        return None
    first = int(torch.nonzero(full).flatten().min())
    return (first, mask.shape[0]) if bool(full[first:].all()) else None


@detector("unwritten", ("boundary_mask_error", "unwritten_output"), suppresses=("precision", "layout"), proof=True)
def unwritten(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    mask = o.unwritten()
    if not mask.numel() or not bool(mask.any()):
        return []
    total = mask.numel()
    count = int(mask.sum())
    m2 = o.as_2d(mask)
    rows_hit = m2.any(dim=1)
    cols_hit = m2.any(dim=0)
    r0, c0 = _tail_start(m2.all(dim=1)), _tail_start(m2.all(dim=0))
    tail = torch.zeros_like(m2)
    if r0 is not None:
        tail[r0:] = True
    if c0 is not None:
        tail[:, c0:] = True
    evidence: Evidence = {
        "unwritten_elements": count,
        "total": total,
        "fraction": count / total,
        "rows_with_unwritten": int(rows_hit.sum()),
        "cols_with_unwritten": int(cols_hit.sum()),
    }
    if count == total and facts.atomic_add:
        # NaN + x is NaN: atomics that add into an uninitialised output keep its poison everywhere
        return [
            Diagnosis(
                pattern="unwritten_output",
                confidence=0.9,
                seed=o.seed,
                output=o.name,
                summary="every output element still holds the allocation's poison, and the kernel adds into the "
                f"output with tl.atomic_add ({_lines(facts.atomic_add)}): it is allocated uninitialised "
                "(torch.empty) and accumulated into; allocate it with torch.zeros",
                evidence=evidence | {"atomic_add": _lines(facts.atomic_add)},
                suggested_fixes=["initialize_output"],
                location=Location(description="the whole output"),
            )
        ]
    slices = _leading_slices_unwritten(mask)
    if slices is not None:
        first, size = slices
        return [
            Diagnosis(
                pattern="unwritten_output",
                confidence=0.9,
                seed=o.seed,
                output=o.name,
                summary=f"whole slices {first}..{size - 1} along dimension 0 (of {size}) were never written, "
                "the rest fully: the grid does not cover that dimension (a missing grid axis, e.g. the batch, "
                "or a wrong size for it)",
                evidence=evidence | {"first_unwritten_slice": first, "slices": size},
                suggested_fixes=["boundary_mask"],
                location=Location(
                    description=f"slices {first}..{size - 1} of dimension 0 never written",
                    indices=element_indices(mask, tuple(o.measured.shape)),
                ),
            )
        ]
    if bool(tail.any()) and bool((tail == m2).all()) and count < total:
        parts = []
        if r0 is not None:
            parts.append(f"rows {r0}..{m2.shape[0] - 1}")
        if c0 is not None:
            parts.append(f"columns {c0}..{m2.shape[1] - 1}")
        tile = _tile_of(r0 if r0 is not None else c0, facts.blocks())
        evidence.update({"first_unwritten_row": r0, "first_unwritten_col": c0, "tile": tile})
        return [
            Diagnosis(
                pattern="boundary_mask_error",
                confidence=0.95,
                seed=o.seed,
                output=o.name,
                summary=f"{' and '.join(parts)} were never written (NaN poison survived): "
                f"the grid misses the last partial tile{f' of {tile}' if tile else ''}; "
                "size it with triton.cdiv and mask the tail",
                evidence=evidence,
                suggested_fixes=["boundary_mask"],
                location=Location(
                    description=" and ".join(parts) + " never written",
                    indices=element_indices(mask, tuple(o.measured.shape)),
                    rows=[r0, m2.shape[0] - 1] if r0 is not None else None,
                    cols=[c0, m2.shape[1] - 1] if c0 is not None else None,
                    tile=[tile] if tile else None,
                ),
            )
        ]
    return [
        Diagnosis(
            pattern="unwritten_output",
            confidence=0.9,
            seed=o.seed,
            output=o.name,
            summary=f"{count} of {total} output elements ({count / total:.1%}) were never written: "
            "the kernel's stores do not cover the output",
            evidence=evidence,
            suggested_fixes=["boundary_mask", "initialize_output"],
            location=Location(
                description="elements still holding the allocation's poison",
                indices=element_indices(mask, tuple(o.measured.shape)),
            ),
        )
    ]


@detector("all_zero", ("all_zero_output",), suppresses=("precision", "layout"))
def all_zero(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    a = o.a
    if a.numel() == 0 or bool((a != 0).any()) or not bool((o.g != 0).any()):
        return []
    if not facts.zero_allocations and facts.parse_error is None:
        # every allocation the candidate makes is poisoned (NaN / sentinel): zeros there were written
        return []
    return [
        Diagnosis(
            pattern="all_zero_output",
            confidence=0.9,
            seed=o.seed,
            output=o.name,
            summary="the output is all zeros where the golden is not: the kernel's results never reached the returned "
            "tensor (wrong buffer, store skipped, or a zero-initialised output never written)",
            evidence={
                "nonzero_golden_elements": int((o.g != 0).sum()),
                "floor_division_grid": _lines(facts.floor_division_grid),
            },
            suggested_fixes=["boundary_mask", "initialize_output"]
            if facts.floor_division_grid
            else ["initialize_output"],
        )
    ]


# --- transforms of the golden ----------------------------------------------------------------


def tail_views(o: OutputData, blocks: list[int]) -> list[tuple[str, int, torch.Tensor]]:
    """(axis, block, tail mask) for each block size that leaves a partial last block, along the
    last axis (row-tiled kernels) and along the flat index (elementwise kernels)."""
    shape = tuple(o.measured.shape)
    numel = o.measured.numel()
    views = []
    for block in blocks:
        for axis, n in (("last axis", shape[-1] if shape else 0), ("flat index", numel)):
            if n > block and n % block:
                positions = torch.arange(n)
                tail = positions >= n - n % block
                mask = tail.expand(shape) if axis == "last axis" else tail.reshape(shape)
                views.append((axis, block, mask))
    return views


def nonfinite_agree(x: torch.Tensor, y: torch.Tensor) -> bool:
    """NaN at the same positions and +/-inf at the same positions with the same sign: outputs
    that legitimately hold infinities (a -inf mask) compare equal there."""
    nan_x, nan_y = torch.isnan(x), torch.isnan(y)
    inf_x, inf_y = torch.isinf(x), torch.isinf(y)
    return bool((nan_x == nan_y).all()) and bool((inf_x == inf_y).all()) and bool((x[inf_x] == y[inf_x]).all())


def _finite_pair(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    both = torch.isfinite(x) & torch.isfinite(y)
    return x[both], y[both]


@detector("padding_wins", ("boundary_mask_error",), only_failed=True)
def padding_wins(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    """Wrong outputs that equal, exactly, the constant a masked load pads its lanes with while its
    value feeds a max / min (other=0.0 before a running max): the padding won the reduction
    wherever every real element lies below it (a row of negative values)."""
    a, g = o.measured, o.golden
    if not facts.padded_extremes or not a.is_floating_point() or a.shape != g.shape or a.numel() == 0:
        return []
    a, g = o.a, o.g
    wrong = (a - g).abs() > T.RELATIVE_ERROR_EPS + 1e-3 * g.abs()
    count = int(wrong.sum())
    if count == 0:
        return []
    best = max(facts.padded_extremes.items(), key=lambda item: int((wrong & (a == item[1])).sum()))
    line, padding = best
    padded = wrong & (a == padding)
    share = int(padded.sum()) / count
    if share < T.PADDING_WINS_MIN_SHARE:
        return []
    return [
        Diagnosis(
            pattern="boundary_mask_error",
            confidence=0.85 if share >= 0.9 else 0.7,
            seed=o.seed,
            output=o.name,
            summary=f"{int(padded.sum())} of the {count} wrong elements are exactly {padding:g}, the value the "
            f"masked load on line {line} pads its lanes with (other={padding:g}) while that value feeds a max / min: "
            "the padding of the partial last block won the reduction. Pad with the reduction's identity "
            "(other=-float('inf') for a max, float('inf') for a min)",
            evidence={
                "padding": padding,
                "load_line": line,
                "wrong": count,
                "wrong_equal_to_padding": int(padded.sum()),
            },
            suggested_fixes=["boundary_mask"],
            location=Location(
                description=f"outputs equal to the padding {padding:g}", indices=element_indices(padded, tuple(a.shape))
            ),
        )
    ]


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
        return [few] if few is not None else []
    # A missing factor is a property of the kernel, not of one input: the other seeds must show the same one.
    others = [
        _scale_factor(x.a, x.g, eps)
        for x in ctx.outputs
        if x.name == o.name and x.seed != o.seed and x.actual is not None and x.actual.shape == x.golden.shape
    ]
    if any(other is None or abs(other - scale) > 1e-3 * abs(scale) for other in others):
        return []
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


# --- NaN / Inf ----------------------------------------------------------------------------------


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
            summary=f"{count} of {a.numel()} integer outputs are {what}: the index arithmetic "
            + ("adds a stray offset" if constant else "omits or misplaces a block start (start + lane offset)")
            + "; compare it with the reference",
            evidence=common | {"multiple_of": step, "constant": constant, "block_sizes": blocks},
            suggested_fixes=["fix_formula"],
            location=location.model_copy(update={"tile": [tile] if tile else None}),
        )
    ]


# --- precision ---------------------------------------------------------------------------------


def error_by_magnitude(o: OutputData) -> list | None:
    """Mean relative error per quartile of |golden| (smallest first): accumulation errors grow
    with magnitude in absolute terms; cancellation and small-value errors sit in the first bin."""
    if o.actual is None or o.golden is None or o.actual.shape != o.golden.shape or o.golden.numel() < 8:
        return None
    a, g = o.a.reshape(-1), o.g.reshape(-1)
    finite = torch.isfinite(a) & torch.isfinite(g)
    if int(finite.sum()) < 8:
        return None
    a, g = a[finite], g[finite]
    order = torch.argsort(g.abs())
    rel = ((a - g).abs() / (g.abs() + T.RELATIVE_ERROR_EPS))[order]
    mag = g.abs()[order]
    bins = []
    for chunk_rel, chunk_mag in zip(torch.chunk(rel, 4), torch.chunk(mag, 4), strict=True):
        bins.append({"golden_abs_up_to": float(chunk_mag.max()), "mean_rel_error": float(chunk_rel.mean())})
    return bins


def _large_outputs_within(bins: list | None, threshold: float) -> bool:
    """Does the quarter of the outputs with the largest golden magnitudes err within the threshold
    (`bins`: error_by_magnitude)? Precision lost where results are tiny (log(1 + x), an underflow)
    leaves the large ones right; a value wrong at every magnitude (a wrong index, factor, formula or
    additive term) also fails the small-value dimension, and is not that."""
    return bool(bins) and float(bins[-1]["mean_rel_error"]) <= threshold


@detector(
    "precision",
    (
        "reduced_precision_dot",
        "low_precision_accumulation",
        "large_k_accumulation_drift",
        "rounding_mode_bias",
        "small_value_outliers",
        "cancellation_error",
        "threshold_too_strict",
    ),
)
def precision(ctx: RunContext, o: OutputData, facts: SourceFacts) -> list[Diagnosis]:
    if not bool(torch.isfinite(o.g).all()) and not nonfinite_agree(o.a, o.g):
        return []  # infinities at other positions than the golden's: the errors measured are theirs, not rounding
    fingerprint = ctx.fingerprint if o.seed == ctx.fingerprint_seed else []
    r = o.neutral
    cpu = r.cpu_control
    mere, mare = _num(r.mere), _num(r.mare)
    cpu_mere, cpu_mare = (_num(cpu.mere), _num(cpu.mare)) if cpu else (0.0, 0.0)
    threshold = float(r.threshold or 0) or 1.0
    out: list[Diagnosis] = []
    normal_failed, small_failed, cancel_failed = o.normal_failed, o.small_failed, o.cancel_failed
    toward_zero = o.toward_zero
    closest = fingerprint[0].model if fingerprint else None
    by_magnitude = error_by_magnitude(o)
    evidence: Evidence = {
        "mere": mere,
        "mare": mare,
        "cpu_mere": cpu_mere,
        "threshold": threshold,
        "mere_over_cpu": mere / cpu_mere if cpu_mere else None,
        "toward_zero_fraction": toward_zero,
        "compute_num": ctx.compute_num,
        "compute_num_source": ctx.compute_num_source,
        "backend": ctx.result.backend.name if ctx.result.backend else None,
        "rel_error_by_golden_magnitude": by_magnitude,
    }
    if closest:
        evidence["closest_precision_model"] = closest
    gpu = ctx.result.backend is not None and not ctx.result.backend.interpreter

    exact = next((float(p.mere_vs_candidate) for p in fingerprint if p.model.startswith("exact")), None)
    tf32_better = (
        closest is not None
        and closest.startswith("tf32")
        and exact is not None
        and float(fingerprint[0].mere_vs_candidate) < 0.5 * exact
    )  # fp16 inputs: tf32 rounding changes nothing
    if tf32_better and (normal_failed or mere > threshold / 4):
        out.append(
            Diagnosis(
                pattern="reduced_precision_dot",
                confidence=0.95,
                seed=o.seed,
                output=o.name,
                summary=f"the output matches tf32-rounded inputs (MERE {fingerprint[0].mere_vs_candidate:.2g} against "
                f"that emulation vs {mere:.2g} against the golden): tl.dot used tf32 on fp32 inputs"
                + (f" ({_lines(facts.dot_without_ieee)})" if facts.dot_without_ieee else ""),
                evidence=evidence,
                suggested_fixes=["ieee_dot_precision"],
            )
        )
    if facts.low_precision_accumulator or (closest or "").startswith("fp16 accumulator"):
        if normal_failed or small_failed or cancel_failed:
            out.append(
                Diagnosis(
                    pattern="low_precision_accumulation",
                    confidence=0.93 if facts.low_precision_accumulator else 0.8,
                    seed=o.seed,
                    output=o.name,
                    summary="partial sums are kept in low precision: every addition rounds relative to the "
                    f"running sum, so error grows with the reduction (MERE {mere:.2g} vs CPU {cpu_mere:.2g})"
                    + (
                        f"; low-precision accumulator at {_lines(facts.low_precision_accumulator)}"
                        if facts.low_precision_accumulator
                        else ""
                    ),
                    evidence=evidence | {"low_precision_accumulator": _lines(facts.low_precision_accumulator)},
                    suggested_fixes=["fp32_accumulator", "kahan_summation"],
                )
            )
    uniform = mare > 0 and mere > 0 and mare / mere < 4
    long_reduction = (ctx.compute_num or 0) >= 2048
    if (
        normal_failed
        and long_reduction
        and (toward_zero or 0) >= 0.9
        and (facts.dot_accumulate_in_loop or gpu)
        and not out
    ):
        out.append(
            Diagnosis(
                pattern="large_k_accumulation_drift",
                confidence=0.9 if uniform else 0.75,
                seed=o.seed,
                output=o.name,
                summary=f"over a reduction of {ctx.compute_num}, the accumulation drifts toward zero "
                f"({toward_zero:.0%} of errors) by a nearly uniform relative error (MERE {mere:.2g}, MARE {mare:.2g}): "
                "per-block additions into a large accumulator lose low bits (tensor cores truncate)",
                evidence=evidence | {"acc_plus_dot_in_loop": _lines(facts.dot_accumulate_in_loop)},
                suggested_fixes=["kahan_summation", "fp32_accumulator"],
            )
        )
    # A truncating conversion errs by less than one unit in the last place of the output dtype;
    # a one-sided error far larger than that is a formula or scale error, not a rounding mode.
    ulp = float(torch.finfo(o.actual.dtype).eps) if o.actual is not None and o.actual.is_floating_point() else 0.0
    within_ulps = ulp == 0.0 or mare <= 4 * ulp
    inexact = o.neutral.bias.nonzero_count if o.neutral.bias else 0
    if (
        toward_zero is not None
        and toward_zero >= 0.95
        and inexact >= T.ROUNDING_BIAS_MIN_INEXACT
        and within_ulps
        and not out
    ):
        cpu_toward = o.cpu_toward_zero
        if cpu_toward is None or 0.05 < cpu_toward < 0.95:
            # Without a truncating cast in the source, a bias on a passing run is the hardware's
            # (tensor cores truncate inside tl.dot): worth knowing, not a defect to fix.
            confidence = 0.95 if facts.rtz_cast else 0.6 if o.failed else 0.3
            cause = (
                f" (fp_downcast_rounding='rtz' at {_lines(facts.rtz_cast)})"
                if facts.rtz_cast
                else " (no truncating cast in the source: likely tensor-core truncation inside tl.dot)"
                if gpu
                else ""
            )
            out.append(
                Diagnosis(
                    pattern="rounding_mode_bias",
                    confidence=confidence,
                    seed=o.seed,
                    output=o.name,
                    summary=f"{toward_zero:.0%} of the inexact elements err toward zero (CPU: "
                    f"{cpu_toward if cpu_toward is not None else 0.5:.0%}): a truncating conversion{cause}",
                    evidence=evidence | {"rtz_cast": _lines(facts.rtz_cast)},
                    suggested_fixes=["cast_round_mode_rint"] if facts.rtz_cast or o.failed else [],
                )
            )
    if (
        small_failed
        and (facts.log_one_plus or _large_outputs_within(by_magnitude, threshold))
        and not any(d.pattern == "low_precision_accumulation" for d in out)
    ):
        fixes: list[FixId] = ["stable_formula"] if facts.log_one_plus else ["fp32_accumulator", "stable_formula"]
        out.append(
            Diagnosis(
                pattern="small_value_outliers",
                confidence=0.8 if facts.log_one_plus else 0.7,
                seed=o.seed,
                output=o.name,
                summary=f"{r.small_value_error_count} errors among small golden values vs "
                f"{r.small_value_cpu_error_count} for the CPU: precision is lost where results are tiny"
                + (
                    f" (log(1 + x) at {_lines(facts.log_one_plus)} loses x when x is small: use log1p)"
                    if facts.log_one_plus
                    else ""
                ),
                evidence=evidence
                | {
                    "small_value_errors": r.small_value_error_count,
                    "cpu_small_value_errors": r.small_value_cpu_error_count,
                },
                suggested_fixes=fixes,
            )
        )
    if (cancel_failed or (normal_failed and facts.one_pass_variance)) and not any(
        d.pattern == "low_precision_accumulation" for d in out
    ):
        counted = (
            f"{r.cancel_error_count} results cancel to ~0 wrongly vs {r.cancel_cpu_error_count} for the CPU"
            if r.cancel_error_count
            else f"the error is {mere / cpu_mere if cpu_mere else float('inf'):.3g}x the CPU control's"
        )
        out.append(
            Diagnosis(
                pattern="cancellation_error",
                confidence=0.85 if facts.one_pass_variance else 0.7,
                seed=o.seed,
                output=o.name,
                summary=f"{counted}: large nearly equal terms are subtracted in low precision"
                + (
                    f" (one-pass E[x^2] - E[x]^2 at {_lines(facts.one_pass_variance)})"
                    if facts.one_pass_variance
                    else ""
                ),
                evidence=evidence
                | {"cancellation_errors": r.cancel_error_count, "cpu_cancellation_errors": r.cancel_cpu_error_count},
                suggested_fixes=["stable_formula", "kahan_summation"]
                if facts.one_pass_variance
                else ["fp32_accumulator", "kahan_summation"],
            )
        )
    if normal_failed and not out:
        if (
            cpu is not None
            and cpu.normal_passed is False
            and cpu_mere
            and mere <= 2 * cpu_mere
            and mare <= 5 * (cpu_mare or mare)
        ):
            out.append(
                Diagnosis(
                    pattern="threshold_too_strict",
                    confidence=0.8,
                    seed=o.seed,
                    output=o.name,
                    summary=f"the CPU same-precision control fails the same threshold (MERE {cpu_mere:.2g}, "
                    f"MARE {cpu_mare:.2g}) and the candidate is within its error: "
                    "the threshold, not the kernel, is at issue",
                    evidence=evidence,
                    suggested_fixes=["relax_threshold"],
                )
            )
        elif facts.dot_accumulate_in_loop and long_reduction:
            out.append(
                Diagnosis(
                    pattern="large_k_accumulation_drift",
                    confidence=0.6,
                    seed=o.seed,
                    output=o.name,
                    summary=f"error grows over a reduction of {ctx.compute_num} accumulated block by block "
                    f"(MERE {mere:.2g} vs CPU {cpu_mere:.2g})",
                    evidence=evidence,
                    suggested_fixes=["kahan_summation", "fp32_accumulator"],
                )
            )
        else:
            out.append(
                Diagnosis(
                    pattern="low_precision_accumulation",
                    confidence=0.5,
                    seed=o.seed,
                    output=o.name,
                    summary=(
                        f"normal-range error {mere / cpu_mere:.3g}x the CPU's (MERE {mere:.2g} vs {cpu_mere:.2g})"
                        if cpu_mere
                        else f"normal-range error MERE {mere:.2g} where the CPU control's is 0"
                    )
                    + ": somewhere the kernel computes in lower precision than the op needs",
                    evidence=evidence,
                    suggested_fixes=["fp32_accumulator"],
                )
            )
    return out


@detector("nondeterminism", ("nondeterminism",), scope="run")
def nondeterminism(ctx: RunContext, facts: SourceFacts) -> list[Diagnosis]:
    det = ctx.result.checks.determinism
    if det is None or det.bitwise_equal is not False:
        return []
    return [
        Diagnosis(
            pattern="nondeterminism",
            confidence=0.9,
            summary=f"re-running seed {ctx.result.seeds[0].seed if ctx.result.seeds else '?'} changed "
            f"{det.differing_elements} element(s) (max |diff| {det.max_abs_diff:g}): "
            + (
                f"the order of floating-point additions depends on scheduling (tl.atomic_add at "
                f"{_lines(facts.atomic_add)})"
                if facts.atomic_add
                else "the source has no atomics: programs that write one address (a race), or values read "
                "from memory nothing wrote"
            ),
            evidence={
                "differing_elements": det.differing_elements,
                "max_abs_diff": det.max_abs_diff,
                "atomic_add": _lines(facts.atomic_add),
            },
            # a fixed-order reduction replaces atomics: offered only where the source has some
            suggested_fixes=["deterministic_reduction"] if facts.atomic_add else [],
        )
    ]
