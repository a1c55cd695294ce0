"""Which dimension of a misaddressed load is wrong, read from its lanes, and which line computes that index.

Where the reference computes an output element from a few elements of an input (a copy, a gather, a
broadcast operand, a stencil) and the access trace paired each stored element with what the same
lane of each load read, the element a lane should have read is known (the one needed, or of several,
the one no other load of that input read for the lane). Over the sampled wrong elements (and none of
the right ones) the dimensions whose index differs are what the address gets wrong; how the index
read relates to the needed one is inferred from the pairs (an offset, another dimension's index, a
scale, the output's index wrapped at another size) or said to be unexplained; and the kernel variable
that held that dimension's index at that load (sandbox.harness.index_names) names the line that
computes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tools import thresholds as T
from tools.diagnosis.context import OutputData, RunContext
from tools.diagnosis.detectors import flat_index
from tools.diagnosis.traced import TracedSample
from tools.models.diagnosis import Diagnosis
from tools.repair.source import assignment_line

#: (load line, input) -> dimension -> the kernel variables that held its index at that load
IndexNames = dict[tuple[int, int], dict[int, list[str]]]


@dataclass(frozen=True)
class Slip:
    """Which dimensions of an input a load indexes wrongly: per sampled wrong element (whose reference reads one
    element of it, aligned with the load's lane) the index the reference reads and the one the lane read."""

    dims: list[int]
    pairs: list[tuple[TracedSample, list[int], list[int]]]
    outputs: list[list[int]]  # per pair, the output element's multi-index
    sizes: list[int]  # the input's and the output's sizes (moduli an index may wrap at)


def dimension_slip(
    samples: list[TracedSample], index: int, line: int, shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> Slip | None:
    """The dimensions the load at `line` gets wrong, where the lanes align: on the wrong samples the element read
    differs from the one the reference needs, on the right ones it is that one."""
    wrong, right_agree, right_differ, by_nearness = [], 0, 0, False
    for s in samples:
        expected, read = _expected_read(s, index, line, shape), s.aligned.get((index, line))
        if expected is None or read is None:
            continue
        want, got = flat_index(expected[0], shape), flat_index(read, shape)
        if s.wrong:
            wrong.append((s, want, got))
            by_nearness |= expected[1]
        else:
            right_agree += want == got
            right_differ += want != got
    # that the lanes align is shown by the right outputs' lanes reading what they need (most of them: an output can
    # be right beside a wrong read where it barely depends on that value)
    if len(wrong) < T.ACCESS_MIN_JUDGED or right_agree < T.ACCESS_LANE_RIGHT_AGREE * (right_agree + right_differ):
        return None
    if by_nearness and right_agree < T.ACCESS_MIN_JUDGED:
        return None
    differ = [p for p in wrong if p[1] != p[2]]
    if len(differ) < T.ACCESS_WRONG_SHARE * len(wrong):
        return None
    dims = [
        d for d in range(len(shape)) if sum(w[d] != g[d] for _, w, g in differ) >= T.ACCESS_WRONG_SHARE * len(differ)
    ]
    outputs = [flat_index(p[0].flat, out_shape) for p in differ]
    return Slip(dims, differ, outputs, sorted({*shape, *out_shape})) if dims else None


def coordinate_slip(
    samples: list[TracedSample], index: int, line: int, shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> Slip | None:
    """Where a load's lanes do not align with the output (a tile of keys for one output element): the dimensions
    along which the program's reads at `line` miss coordinates the reference needs, on most wrong samples and on
    few right ones (a right output's program reads every coordinate it needs along every dimension). Each pair
    holds the least needed and the least read coordinate (exact where each is one value: the head a query reads
    its keys from)."""

    def missed(want: list[torch.Tensor], got: list[torch.Tensor], _read: torch.Tensor):
        dims = [d for d in range(len(shape)) if not bool(torch.isin(want[d], got[d]).all())]
        return dims, ([int(c.min()) for c in want], [int(c.min()) for c in got])

    found = _separating_dims(samples, index, line, shape, missed)
    if found is None:
        return None
    dims, flagging = found
    pairs = [(s, want, got) for s, _, (want, got) in flagging]
    outputs = [flat_index(s.flat, out_shape) for s, _, _ in pairs]
    return Slip(dims, pairs, outputs, sorted({*shape, *out_shape}))


@dataclass(frozen=True)
class OverRead:
    """A load whose programs read, for wrong outputs, coordinates of an input the reference does not use for them
    (a mask or a bound that lets stale slots or the next row in), where the right outputs' programs do not."""

    dims: list[int]
    #: per wrong sample: the elements read at the line beyond what it needs, and per dimension in `dims` the
    #: coordinates it needs and the ones read beyond them
    samples: list[tuple[TracedSample, torch.Tensor, dict[int, tuple[list[int], list[int]]]]]

    def past_an_end(self) -> bool:
        """Every coordinate read beyond the needed ones lies past one end of them (after the last, or before the
        first): what a mask or loop bound one too wide reads."""
        return all(
            min(extra) > max(needed) or max(extra) < min(needed)
            for _, _, coords in self.samples
            for needed, extra in coords.values()
        )


def over_read(samples: list[TracedSample], index: int, line: int, shape: tuple[int, ...]) -> OverRead | None:
    """The dimensions along which the load at `line` reads, for most wrong samples, coordinates the reference does
    not need for them, where few right samples' programs do (a tile wider than one output needs would read them
    for every sample alike)."""

    def beyond_need(want: list[torch.Tensor], got: list[torch.Tensor], read: torch.Tensor):
        beyond = torch.zeros(read.numel(), dtype=torch.bool)
        coords: dict[int, tuple[list[int], list[int]]] = {}
        for d in range(len(shape)):
            outside = ~torch.isin(got[d], want[d])
            if bool(outside.any()):
                beyond |= outside
                coords[d] = (want[d].tolist(), got[d][outside].unique().tolist())
        return list(coords), (read[beyond], coords)

    found = _separating_dims(samples, index, line, shape, beyond_need)
    if found is None:
        return None
    dims, flagging = found
    kept = [(s, extra, {d: c for d, c in coords.items() if d in dims}) for s, _, (extra, coords) in flagging]
    return OverRead(dims, [k for k in kept if k[2]])


def _separating_dims(samples: list[TracedSample], index: int, line: int, shape: tuple[int, ...], judge):
    """The dimensions `judge` flags (from a sample's needed coordinates per dimension, its read ones and the
    elements read at `line`: (dimensions, what to keep)) on most judged wrong samples and on few right ones:
    (those dimensions, [(wrong sample, its dimensions, what was kept)] of the wrong samples flagging any), or None."""
    wrong, right_flagged, right_judged = [], 0, 0
    for s in samples:
        needed, read = s.needed.get(index), s.reads.get(index, {}).get(line)
        if not s.judgeable or needed is None or read is None or not needed.numel() or not read.numel():
            continue
        want = [c.unique() for c in torch.unravel_index(needed, shape)]
        flagged, kept = judge(want, list(torch.unravel_index(read, shape)), read)
        if s.wrong:
            wrong.append((s, flagged, kept))
        else:
            right_judged += 1
            right_flagged += bool(flagged)
    if len(wrong) < T.ACCESS_MIN_JUDGED or right_flagged > (1 - T.ACCESS_LANE_RIGHT_AGREE) * max(right_judged, 1):
        return None
    flagging = [w for w in wrong if w[1]]
    if len(flagging) < T.ACCESS_WRONG_SHARE * len(wrong):
        return None
    dims = [d for d in range(len(shape)) if sum(d in w[1] for w in flagging) >= T.ACCESS_WRONG_SHARE * len(flagging)]
    return (dims, flagging) if dims else None


def _expected_read(sample: TracedSample, index: int, line: int, shape: tuple[int, ...]) -> tuple[int, bool] | None:
    """The element of input `index` the lane that stored this sample should have read at `line`, and whether it was
    told by nearness (None: not told). The element read where the reference needs it; of a few needed elements, the
    one no other load line of that input read for this lane (none where another read each); of many (a row a
    reduction needs), the one needed element nearest to the one read (the fewest coordinates differ, and it alone)."""
    needed, read = sample.needed.get(index), sample.aligned.get((index, line))
    if not sample.judgeable or needed is None or read is None or needed.numel() == 0:
        return None
    if bool((needed == read).any()):
        return read, False
    if needed.numel() > T.ACCESS_ALIGNED_MAX_NEEDED:
        nearest = _nearest(needed, read, shape)
        return None if nearest is None else (nearest, True)
    # a needed element another load line of this lane read is not what this one should have (the one needed
    # element read elsewhere: this load feeds another of the program's values, as a longitude load feeds X and Y,
    # not the Z the sample is)
    wanted = {int(v) for v in needed.tolist()}
    others = {e for (i, other), e in sample.aligned.items() if i == index and other != line}
    left = wanted - others
    return (next(iter(left)), False) if len(left) == 1 else None


def _nearest(needed: torch.Tensor, read: int, shape: tuple[int, ...]) -> int | None:
    """The one needed element whose coordinates differ from the read one's in the fewest dimensions (fewer than all
    of them), None where several tie."""
    coordinates = torch.stack(torch.unravel_index(needed, shape), 1)
    target = torch.tensor(flat_index(read, shape))
    distance = (coordinates != target).sum(1)
    closest = int(distance.min())
    at = torch.nonzero(distance == closest).reshape(-1)
    return int(needed[at[0]]) if at.numel() == 1 and closest < len(shape) else None


def relation(slip: Slip, dim: int) -> str:
    """How the index read along `dim` relates to the reference's: a constant offset, another dimension's
    index, one value, else a few of the pairs (unexplained)."""
    pairs = [(w[dim], g[dim]) for _, w, g in slip.pairs]
    offsets = {g - w for w, g in pairs}
    if len(offsets) == 1:
        return f"{offsets.pop():+d} from the reference's index"
    other = next(
        (e for e in range(len(slip.pairs[0][1])) if e != dim and all(g[dim] == w[e] for _, w, g in slip.pairs)), None
    )
    if other is not None:
        return f"the reference's index of dimension {other}"
    if len({g for _, g in pairs}) == 1:
        return f"always {pairs[0][1]}"
    scale = _scale(pairs)
    if scale is not None:
        return f"about {scale:.3g} x the reference's index (a size or scale slip)"
    read = _of_output(slip, [g for _, g in pairs])
    if read is not None:
        wanted = _of_output(slip, [w for w, _ in pairs])
        return f"{read}{f', the reference {wanted}' if wanted else ''}"
    shown = ", ".join(f"{g} for {w}" for w, g in pairs[:4])
    return f"unexplained ({shown}, ...)" if len(pairs) > 4 else f"unexplained ({shown})"


def _of_output(slip: Slip, values: list[int]) -> str | None:
    """`values` as the output element's index along one dimension plus a small constant, wrapped at a size
    of the input or the output or not at all ('the output's index 1 + 1 modulo 37'), or that index divided by
    the ratio of two sizes ('the output's index 1 // 4': a group of query heads sharing one KV head). The
    simplest relation that holds on every pair is said."""
    ratios = sorted({a // b for a in slip.sizes for b in slip.sizes if 1 < b < a and a % b == 0})
    for shift in (0, 1, -1, 2, -2):
        for dim in range(len(slip.outputs[0])):
            shifted = [o[dim] + shift for o in slip.outputs]
            term = f"the output's index {dim}" + (f" {'+' if shift > 0 else '-'} {abs(shift)}" if shift else "")
            if shifted == values:
                return term
            divisor = next((r for r in ratios if [v // r for v in shifted] == values), None) if not shift else None
            if divisor is not None:
                return f"{term} // {divisor}"
            modulus = next((m for m in slip.sizes if m > 1 and [v % m for v in shifted] == values), None)
            if modulus is not None and any(v >= modulus for v in shifted):
                return f"({term}) modulo {modulus}"
    return None


def _scale(pairs: list[tuple[int, int]]) -> float | None:
    """r where every index read is the reference's times r, rounded down or up (None: no such r, or r = 1)."""
    spread = [(w, g) for w, g in pairs if w > 0]
    if len(spread) < 2 or len({w for w, _ in spread}) < 2:
        return None
    r = sum(g * w for w, g in spread) / sum(w * w for w, _ in spread)
    if abs(r - 1) < 1e-3 or any(abs(g - r * w) > 1 for w, g in spread):
        return None
    return r


@dataclass(frozen=True)
class WrongIndex:
    """What the lanes of a misaddressed load say: the text, the line computing the wrong index (None: no variable
    holds it) and the output element it is shown on."""

    text: str
    index_line: int | None
    output_index: list[int]
    dims: list[int]


def wrong_index(
    ctx: RunContext, slip: Slip, target: OutputData, index: int, line: int, names: IndexNames
) -> WrongIndex:
    sample, want, got = slip.pairs[0]
    texts, computed = [], []
    for dim in slip.dims:
        held = names.get((line, index), {}).get(dim, [])
        assigned = [(n, a) for n in held if (a := assignment_line(ctx.source or "", n, line)) is not None]
        where = (
            f"`{assigned[0][0]}` (line {assigned[0][1]}) holds it"
            if assigned
            else f"`{held[0]}` holds it"
            if held
            else f"no variable holds it (the address arithmetic of line {line})"
        )
        # a coordinate slip's pair holds the least needed and the least read coordinate: equal, the reads miss others
        relation_text = (
            f"read {got[dim]} where the reference reads {want[dim]}, {relation(slip, dim)}"
            if got[dim] != want[dim]
            else f"the reads miss coordinates the reference reads beside {want[dim]}"
        )
        texts.append(f"dimension {dim}: {relation_text}; {where}")
        computed += [a for _, a in assigned[:1]]
    output_index = flat_index(sample.flat, tuple(target.measured.shape))
    read = (
        f"line {line} reads input {index}{got}, the reference reads input {index}{want} ({len(slip.pairs)} sampled "
        "wrong elements read another element)"
        if got != want
        else f"line {line}'s reads of input {index} miss elements the reference reads ({len(slip.pairs)} sampled "
        "wrong elements)"
    )
    text = f"for {output_name(target.name)}{output_index} {read}: " + "; ".join(texts)
    return WrongIndex(text, computed[0] if computed else None, output_index, slip.dims)


def located_index(ctx: RunContext, found: Diagnosis, wrong: WrongIndex, index: int, prefix: str = "") -> Diagnosis:
    """`found` at the line that computes the wrong index (where one does), with what the lanes showed."""
    location = (
        ctx.line_location(wrong.index_line, tensor=f"input {index}", access=wrong.text)
        if wrong.index_line is not None
        else found.location
    )
    if location is not None:
        location.indices = [wrong.output_index]
    evidence = {
        **found.evidence,
        "wrong_dimensions": wrong.dims,
        **({"index_line": wrong.index_line} if wrong.index_line is not None else {}),
    }
    summary = f"{found.summary}; {wrong.text}" if found.summary else wrong.text
    return Diagnosis.model_validate(
        found.model_dump() | {"summary": prefix + summary, "location": location, "evidence": evidence}
    )


def output_name(name: str) -> str:
    return name if name.startswith("output") else f"output {name}"
