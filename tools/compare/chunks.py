"""Chunked traversal of huge outputs and the worst-element tracker.

Every standard walks the flattened tensors in chunks so that the extra memory stays a few
chunk-sized temporaries, whatever the output size (KernelBench users hit OOM in allclose on
4 GB outputs).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import torch

#: Elements per chunk: 2**18 float32 temporaries (1 MiB) stay in a 2 MiB L2 cache; the work is
#: memory-bound, so this measured ~1.5x faster than 2**20 (benchmarks/compare_bench.py).
DEFAULT_CHUNK = 1 << 18


def compute_dtype(storage: torch.dtype) -> torch.dtype:
    """The dtype a standard computes errors in.

    float32 for float16 and float8: exact far below their thresholds, and their largest errors
    (|actual - golden| <= 2 x 65504, relative errors against a golden of 0 up to ~1e12) stay far
    inside its range. bfloat16 has float32's range, so |actual - golden| of two large
    opposite-sign values overflows float32 (2 x 3.39e38), as does a relative error against a small
    golden: float64, like every wider dtype.
    """
    if storage.itemsize <= 2 and storage != torch.bfloat16:
        return torch.float32
    return torch.float64


def flat(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1)


def isnan(t: torch.Tensor) -> torch.Tensor:
    """torch.isnan without its float32 CPU kernel (torch 2.13: ~25x slower than a compare)."""
    return ~(t.abs() <= math.inf)


def has_nan(t: torch.Tensor) -> bool:
    """Does the chunk hold a NaN? One reduction: a finite sum proves there is none."""
    if math.isfinite(float(t.sum())):
        return False
    return bool(isnan(t).any())


def isfinite(t: torch.Tensor) -> torch.Tensor:
    """torch.isfinite by one compare (NaN compares false), for the same reason."""
    return t.abs() < math.inf


def zero_nonfinite(x: torch.Tensor, g: torch.Tensor):
    """(x, g, mask): where either side is NaN/Inf both become 0 and mask is False.

    mask is None when the chunk is all finite, the common case, which then costs one compare.
    """
    mask = isfinite(x) & isfinite(g)
    if bool(mask.all()):
        return x, g, None
    return torch.where(mask, x, 0.0), torch.where(mask, g, 0.0), mask


def tolerance_errors(x: torch.Tensor, e: torch.Tensor, bound: torch.Tensor):
    """(error mask, violation score |x - e| / bound) for one chunk, isclose(equal_nan=True) rules.

    NaN differences err (NaN compares false); non-finite values are close only when equal (Inf <=
    rtol * Inf must not pass). Scores are made orderable: errors with a NaN score rank highest,
    matching NaN / Inf pairs lowest, so they never crowd real errors out of the worst elements.
    """
    diff = (x - e).abs_()
    score = diff / bound
    err = ~(diff <= bound)
    finite = isfinite(x) & isfinite(e)
    if not bool(finite.all()):
        err |= ~finite
        err &= ~((x == e) | (isnan(x) & isnan(e)))
    elif not bool(err.any()):
        return err, score  # all finite and close: the scores are finite already
    score = torch.where(err, score.nan_to_num(nan=math.inf, posinf=math.inf), score.nan_to_num(0.0, posinf=0.0))
    return err, score


def chunk_ranges(n: int, chunk: int = DEFAULT_CHUNK) -> Iterator[tuple[int, int]]:
    for start in range(0, n, chunk):
        yield start, min(n, start + chunk)


class WorstTracker:
    """Keeps the k largest scores seen across chunks, with their flat indices."""

    def __init__(self, k: int):
        self.k = k
        self.scores: list[torch.Tensor] = []
        self.indices: list[torch.Tensor] = []
        self.tags: list[torch.Tensor] = []
        self.kth = -math.inf  # a chunk whose max is not above this cannot enter the top k

    def add(self, score: torch.Tensor, offset: int, tag=None) -> None:
        """Offer a chunk's scores; `tag(idx)` returns integer tags (e.g. a domain code) for them."""
        if self.k <= 0 or score.numel() == 0:
            return
        score = score.nan_to_num(nan=math.inf, posinf=math.inf)
        if float(score.amax()) <= self.kth:  # topk is the costliest op per chunk: skip it
            return
        k = min(self.k, score.numel())
        top, idx = torch.topk(score, k)
        self.scores.append(top.to(torch.float64).cpu())
        self.indices.append(idx.cpu() + offset)
        self.tags.append(tag(idx).cpu() if tag is not None else torch.zeros(k, dtype=torch.long))
        if sum(t.numel() for t in self.scores) >= self.k:
            merged = torch.cat(self.scores)
            self.kth = float(torch.topk(merged, self.k).values[-1])

    def result(self, min_score: float = 0.0) -> list[tuple[float, int, int]]:
        """(score, flat index, tag) triples, largest first, dropping scores <= min_score."""
        if not self.scores:
            return []
        scores = torch.cat(self.scores)
        indices = torch.cat(self.indices)
        tags = torch.cat(self.tags)
        order = torch.argsort(scores, descending=True, stable=True)[: self.k]
        return [
            (float(scores[i]), int(indices[i]), int(tags[i]))
            for i in order.tolist()
            if float(scores[i]) > min_score or math.isnan(float(scores[i]))
        ]


def unravel(flat_index: int, shape: tuple[int, ...]) -> list[int]:
    index = []
    for size in reversed(shape):
        index.append(flat_index % size)
        flat_index //= size
    return list(reversed(index))
