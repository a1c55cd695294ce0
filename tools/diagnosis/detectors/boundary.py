"""Never written, read or written out of bounds, all zero, padding that wins a reduction."""

from __future__ import annotations

import math

import torch

from tools import thresholds as T
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors.common import _lines, _tile_of, element_indices
from tools.diagnosis.registry import detector
from tools.models.diagnosis import Diagnosis, Evidence, Location
from tools.repair import allocation, reach
from tools.repair.source import SourceFacts


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
    evidence: Evidence = {"out_of_bounds_writes": [x.model_dump() for x in writes[:4]], "unmasked_stores": stores}
    overran = {o.name for o in ctx.outputs if o.seed == w.seed and list(o.golden.shape) == list(w.shape)}
    lines = sorted({n for name in overran for n in reach.accesses_of(ctx.source or "", name, "store")})
    if lines:  # the stores into an output of that shape: their masks or addresses reach past it
        evidence["search_lines"] = lines
    cause = (
        f"a tl.store without a mask for the last partial block (unmasked tl.store at {stores})"
        if stores
        else "the masks or the addresses of the stores into it"
        + (f" (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if lines else "")
        + " reach past it"
    )
    return [
        Diagnosis(
            pattern="boundary_mask_error",
            confidence=0.97,
            seed=w.seed,
            summary=f"a store wrote {w.extent()} of a {tuple(w.shape)} output "
            f"allocation (caught in the guard margin around it): {cause}",
            evidence=evidence,
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


def _leading_slices_unwritten(mask: torch.Tensor) -> tuple[int, int, int] | None:
    """(first, count, k) when, in an output of 3 or more dimensions, exactly the slices first.. of its leading k
    dimensions taken as one (count of them) are unwritten, each whole: not a partial tile (a tiling's tail is
    shorter than a slice of the inner dimensions), but a grid axis missing or sized for one of the k dimensions
    where it walks their product (a grid of B planes for B * C)."""
    for k in range(1, mask.dim() - 1):
        count = math.prod(mask.shape[:k])
        if count < 2:
            continue
        per_slice = mask.reshape(count, -1)
        full, empty = per_slice.all(dim=1), ~per_slice.any(dim=1)
        if not bool((full | empty).all()):
            continue
        if bool(full[0]) or not bool(full[-1]):
            return None
        first = int(torch.nonzero(full).flatten().min())
        return (first, count, k) if bool(full[first:].all()) else None
    return None


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
        first, size, k = slices
        grid: list[int] = allocation.grid_lines(ctx.source) if ctx.source else []  # where the search edits first
        slice_evidence: Evidence = {"first_unwritten_slice": first, "slices": size, "leading_dimensions": k}
        slice_evidence["search_lines"] = list(grid)
        dims = (
            "dimension 0"
            if k == 1
            else f"dimensions 0..{k - 1} taken as one ({' x '.join(map(str, mask.shape[:k]))} = {size} slices)"
        )
        return [
            Diagnosis(
                pattern="unwritten_output",
                confidence=0.9,
                seed=o.seed,
                output=o.name,
                summary=f"whole slices {first}..{size - 1} along {dims} were never written, the rest fully: "
                f"the grid covers {first} of the {size} (a missing grid axis, e.g. the batch, or a size for it "
                "that leaves a dimension out)",
                evidence=evidence | slice_evidence,
                suggested_fixes=["boundary_mask"],
                location=Location(
                    description=f"slices {first}..{size - 1} of {dims.split(' (')[0]} never written",
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
        # A tail that starts on a tile boundary is a tile no program (or loop step) covered: the
        # grid or the loop's trip count is short. One that starts mid-tile was cut by a bound.
        cause = (
            f"no program or loop step covers the last partial tile of {tile}: size the grid (or the loop) with "
            "triton.cdiv and mask the tail"
            if tile
            else "a mask or loop bound stops short of the output's end: compare it with the full size"
        )
        return [
            Diagnosis(
                pattern="unwritten_output" if tile else "boundary_mask_error",
                confidence=0.95,
                seed=o.seed,
                output=o.name,
                summary=f"{' and '.join(parts)} were never written (NaN poison survived): {cause}",
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
    stores = reach.accesses_of(ctx.source, o.name, "store") if ctx.source else []
    if stores:  # where the addresses that miss elements are made: the search's first lines
        evidence["search_lines"] = list(stores)
    stored_at = f" (line{'s' if len(stores) > 1 else ''} {', '.join(map(str, stores))})" if stores else ""
    return [
        Diagnosis(
            pattern="unwritten_output",
            confidence=0.9,
            seed=o.seed,
            output=o.name,
            summary=f"{count} of {total} output elements ({count / total:.1%}) were never written: "
            f"the kernel's stores{stored_at} do not cover the output",
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
