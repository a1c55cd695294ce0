"""Which elements of an integer input a sampled output element depends on, by perturbing the input (cpu).

Autograd says nothing about integer or bool inputs (pixels, keys, indices): here the reference is
re-run with some elements of one such input changed, and an output element that changes depends on
one of them. Per dimension of the input, the index is tested one base-8 digit at a time (every
elements whose digit there is 0, then 1, ...: which values of each digit matter); the indices those
answers allow are then proven one by one (an output that changes when that element alone changes
depends on it) and as a whole (changing every other element changes nothing). An output whose
answers do not close that way (more than MAX_CANDIDATES candidates, a reference that fails on
changed inputs) gets no claim. A change keeps each value inside the range
the input holds (an index stays an index): the value half that range away, wrapped around.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import torch

from sandbox.harness import common

#: Indices are tested one digit at a time in this base: a dimension up to this size value by value.
DIGIT_BASE = 8
#: Elements one sampled output may depend on (the product of the values found per dimension).
MAX_CANDIDATES = 8
#: Reference forwards one input may take, and seconds all of this may take.
MAX_FORWARDS = 400
TIME_LIMIT_S = 5.0
#: Inputs larger than this are left out.
MAX_ELEMENTS = 1 << 24


def _changed_values(x: torch.Tensor) -> torch.Tensor | None:
    """Every element changed, inside the range the input holds (None: one value only)."""
    if x.dtype == torch.bool:
        return ~x
    low, high = int(x.min()), int(x.max())
    if low == high:
        return None
    span = high - low + 1
    wide = x.to(torch.int64) - low
    return ((wide + span // 2) % span + low).to(x.dtype)


def _same_outputs(a: list[torch.Tensor], b: list[torch.Tensor] | None) -> bool:
    """Two forwards on the same inputs gave the same outputs (NaN equal to NaN), every element of every output."""
    if b is None or len(a) != len(b):
        return False
    return all(x.shape == y.shape and bool(torch.equal(x, y) or _nan_equal(x, y)) for x, y in zip(a, b, strict=True))


def _nan_equal(x: torch.Tensor, y: torch.Tensor) -> bool:
    return x.is_floating_point() and bool(((x == y) | (torch.isnan(x) & torch.isnan(y))).all())


class _Probe:
    """Forwards of the reference with one input partly changed, answered per sampled output element."""

    def __init__(self, model, task_inputs, samples: list[tuple[int, int]], deadline: float):
        self.model, self.task_inputs, self.samples, self.deadline = model, task_inputs, samples, deadline
        self.leaves = common.tree_tensors(common.to_cpu(task_inputs))
        self.forwards = 0
        self.base = self._forward({})
        #: its output changes by itself (a random draw inside it): no change can be told from its own
        self.noisy = self.base is not None and not _same_outputs(self.base, self._forward({}))

    def _forward(self, replaced: dict[int, torch.Tensor]) -> list[torch.Tensor] | None:
        self.forwards += 1
        leaves = [replaced.get(i, t) for i, t in enumerate(self.leaves)]
        position = iter(range(len(leaves)))
        rebuilt = common.tree_map(lambda _t: leaves[next(position)], self.task_inputs)
        try:
            with torch.no_grad(), torch.device("cpu"):
                return [t.detach().reshape(-1) for t in common.tree_tensors(self.model(*rebuilt))]
        except Exception:  # noqa: BLE001 - a reference that cannot take changed inputs: no claim
            return None

    def changed(self, index: int, changed: torch.Tensor, where: torch.Tensor) -> list[bool] | None:
        """Per sample: does its output element change when input `index` takes `changed` at `where`?"""
        if self.base is None or self.noisy or self.forwards >= MAX_FORWARDS or time.monotonic() > self.deadline:
            return None
        x = self.leaves[index]
        out = self._forward({index: torch.where(where.reshape(x.shape), changed, x)})
        if out is None or len(out) != len(self.base):
            return None
        answers = []
        for position, flat in self.samples:
            before, after = self.base[position][flat], out[position][flat]
            same = bool(before == after)
            if before.is_floating_point():
                same = same or bool(torch.isnan(before) & torch.isnan(after))
            answers.append(not same)
        return answers


def dependencies(model, task_inputs, samples: list[tuple[int, int]]) -> dict[int, list[list[int] | None]]:
    """input index -> per sample: the flat elements of that integer input its output element depends on
    (all of them, proven), [] where it depends on none, None where it cannot be told."""
    deadline = time.monotonic() + TIME_LIMIT_S
    probe = _Probe(model, task_inputs, samples, deadline)
    found: dict[int, list[list[int] | None]] = {}
    if probe.base is None:
        return found
    for index, x in enumerate(probe.leaves):
        if x.is_floating_point() or x.is_complex() or not 0 < x.numel() <= MAX_ELEMENTS:
            continue
        changed = _changed_values(x)
        if changed is not None:
            found[index] = _one_input(probe, index, x, changed)
    return found


def _one_input(probe: _Probe, index: int, x: torch.Tensor, changed: torch.Tensor) -> list[list[int] | None]:
    count = len(probe.samples)
    unknown: list[list[int] | None] = [None] * count
    anything = probe.changed(index, changed, torch.ones(x.shape, dtype=torch.bool))
    if anything is None:
        return unknown
    flat = torch.arange(x.numel())
    coordinates = torch.unravel_index(flat, tuple(x.shape))
    values: list[list[set[int]]] = [[set() for _ in x.shape] for _ in range(count)]
    for dim, size in enumerate(x.shape):
        if not _values_along(probe, index, changed, coordinates[dim], size, [v[dim] for v in values]):
            return unknown
    candidates: list[list[int] | None] = []
    for n in range(count):
        if not anything[n]:
            candidates.append([])
            continue
        product = list(itertools.product(*(sorted(v) for v in values[n])))
        candidates.append(
            None
            if not product or len(product) > MAX_CANDIDATES
            else [int(np.ravel_multi_index(p, tuple(x.shape))) for p in product]
        )
    return _proven(probe, index, x, changed, candidates, anything)


def _values_along(probe, index, changed, coordinate, size: int, values: list[set[int]]) -> bool:
    """Per sample, the indices along one dimension its output element may depend on: the index written in base
    DIGIT_BASE, each digit's values tested one by one (every value of a small dimension; a few indices of a large
    one give a few candidates per digit), then combined."""
    digits: list[list[set[int]]] = [[] for _ in values]
    place = 1
    while place < size:
        digit = (coordinate // place) % DIGIT_BASE
        found: list[set[int]] = [set() for _ in values]
        for value in range(min(DIGIT_BASE, -(-size // place))):
            answers = probe.changed(index, changed, digit == value)
            if answers is None:
                return False
            for f, a in zip(found, answers, strict=True):
                if a:
                    f.add(value)
        for d, f in zip(digits, found, strict=True):
            d.append(f)
        place *= DIGIT_BASE
    for v, per_digit in zip(values, digits, strict=True):
        combined = [0]
        for position, choices in enumerate(per_digit):
            combined = [c + x * DIGIT_BASE**position for c in combined for x in sorted(choices)]
            if len(combined) > MAX_CANDIDATES:
                return True  # too many: this sample's values stay empty (no claim)
        v.update(c for c in combined if c < size)
    return True


def _proven(probe, index, x, changed, candidates, anything) -> list[list[int] | None]:
    """Each candidate element tested alone (an output that changes depends on it), then every element but the
    candidates changed at once (an output that changes depends on one more: not told)."""
    union = sorted({e for c in candidates if c for e in c})
    keep = torch.zeros(x.numel(), dtype=torch.bool)
    if union:
        keep[torch.tensor(union)] = True
    rest = probe.changed(index, changed, ~keep)
    if rest is None:
        return [None] * len(candidates)
    needed: list[set[int]] = [set() for _ in candidates]
    for element in union:
        alone = torch.zeros(x.numel(), dtype=torch.bool)
        alone[element] = True
        answers = probe.changed(index, changed, alone)
        if answers is None:
            return [None] * len(candidates)
        for n, a in enumerate(answers):
            if a and candidates[n] and element in candidates[n]:
                needed[n].add(element)
    out: list[list[int] | None] = []
    for n, c in enumerate(candidates):
        if c is None or rest[n] or (anything[n] and not needed[n]):
            out.append(None if anything[n] else [])
        else:
            out.append(sorted(needed[n]))
    return out
