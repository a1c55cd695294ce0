"""Helpers the detectors share: element indices, tails of a block tiling, finite pairs."""

from __future__ import annotations

import torch

from tools.diagnosis.context import OutputData

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
