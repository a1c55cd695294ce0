"""Which input element does each output copy? Inputs tagged with distinct values, for data-movement ops.

An op that only moves data (a permute, a pixel shuffle, a gather, a concat, a slice) outputs values of its
inputs. Give every floating input element its own value (a tag, exact in the input's dtype) and an output's
value names the element it was copied from, for the reference and the candidate alike. Tags are floats of
the narrowest dtype among the inputs (fp16 and bf16 have ~61k normal values: inputs of more elements than
that cannot be tagged), drawn at random so that no arithmetic on them lands on another tag by design.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tools import thresholds as T


def copies_inputs(inputs: list, golden: torch.Tensor) -> bool:
    """The op outputs values of its inputs: (nearly) every finite golden value is an input value."""
    tensors = [t for t in inputs if isinstance(t, torch.Tensor) and t.is_floating_point()]
    if sum(t.numel() for t in tensors) + golden.numel() > T.VALUE_LOOKUP_MAX_ELEMENTS:
        return False  # too large to sort here: no claim either way
    floats = [t.reshape(-1).to(torch.float64) for t in tensors]
    g = golden.reshape(-1).to(torch.float64)
    g = g[torch.isfinite(g)]
    if not floats or g.numel() == 0:
        return False
    values = torch.unique(torch.cat(floats))
    found = torch.isin(g, values)
    return float(found.double().mean()) >= T.COPY_SOURCES_MIN_SHARE


def _normal_values(dtype: torch.dtype) -> torch.Tensor:
    """Every positive normal finite value of a 16-bit float dtype, as float64."""
    bits = torch.arange(0, 1 << 15, dtype=torch.int32).to(torch.int16).view(dtype).to(torch.float64)
    return bits[torch.isfinite(bits) & (bits >= torch.finfo(dtype).tiny)]


def tag_pool(dtypes: set[torch.dtype], count: int, seed: int) -> torch.Tensor | None:
    """`count` distinct values exact in every dtype of `dtypes`, in random order (None: not enough)."""
    generator = torch.Generator().manual_seed(seed % 2**63)
    if dtypes & {torch.float16, torch.bfloat16}:
        pool = None
        for dtype in dtypes & {torch.float16, torch.bfloat16}:
            values = _normal_values(dtype)
            pool = values if pool is None else pool[torch.isin(pool, values)]
        assert pool is not None
    else:  # fp32 / fp64: integers times 2^-8 in [1, 2^16): exact in fp32
        pool = torch.unique(torch.randint(256, 1 << 24, (2 * count + 64,), generator=generator)).to(torch.float64)
        pool = pool / 256
    pool = torch.cat([pool, -pool])
    if pool.numel() < count:
        return None
    return pool[torch.randperm(pool.numel(), generator=generator)[:count]]


class Tagger:
    """The per-tensor transform of one trial: each floating input gets the next run of tags, in order
    (the trial's reference job applies it once; the candidate is given the inputs that job made)."""

    def __init__(self, tags: torch.Tensor):
        self.tags = tags
        self.used = 0
        self.spans: list[tuple[int, tuple[int, ...]]] = []  # (first tag, shape) per tagged input

    def __call__(self, t: torch.Tensor) -> torch.Tensor:
        n = t.numel()
        out = self.tags[self.used : self.used + n].reshape(t.shape).to(t.dtype)
        self.spans.append((self.used, tuple(t.shape)))
        self.used += n
        return out

    def source(self, tag_index: int) -> tuple[int, list[int]]:
        """(tagged input number, multi-index) of the element that got tag number `tag_index`."""
        for number, (first, shape) in enumerate(self.spans):
            size = 1
            for s in shape:
                size *= s
            if first <= tag_index < first + size:
                offset, index = tag_index - first, []
                for s in reversed(shape):
                    index.append(offset % s)
                    offset //= s
                return number, list(reversed(index))
        raise IndexError(tag_index)


@dataclass(frozen=True)
class Traced:
    copy_op: bool  # the reference's outputs are tags
    wrong: int  # finite outputs that differ from the reference's
    copied: float  # share of those that are tags: copies of some input element
    distinct_sources: int  # distinct input elements they copy
    examples: list[tuple[int, tuple[int, list[int]], tuple[int, list[int]] | None]]  # (output, candidate src, ref src)


def _tag_of(values: torch.Tensor, ordered: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """Index in the tag list of each value, or -1 where it is no tag."""
    at = torch.searchsorted(ordered, values).clamp(max=ordered.numel() - 1)
    return torch.where(ordered[at] == values, order[at], torch.full_like(at, -1))


def sources(tagger: Tagger, output: torch.Tensor) -> torch.Tensor:
    """Per output element, the number of the tagged input element it holds (in input order), or -1."""
    ordered, order = torch.sort(tagger.tags[: tagger.used])
    return _tag_of(output.reshape(-1).to(torch.float64), ordered, order)


def same_sources(first: torch.Tensor, second: torch.Tensor) -> bool:
    """The reference copied the same elements under two tag assignments: it moves data whatever the values
    (a permute, a gather), where a max or a sort picks by value."""
    both = (first >= 0) & (second >= 0)
    return bool(both.any()) and float((first[both] == second[both]).double().mean()) >= T.COPY_SOURCES_MIN_SHARE


def trace(tagger: Tagger, actual: torch.Tensor, golden: torch.Tensor) -> Traced:
    tags = tagger.tags[: tagger.used]
    ordered, order = torch.sort(tags)
    a, g = actual.reshape(-1).to(torch.float64), golden.reshape(-1).to(torch.float64)
    g_tag = _tag_of(g, ordered, order)
    finite_g = torch.isfinite(g)
    copy_op = bool(finite_g.any()) and float((g_tag[finite_g] >= 0).double().mean()) >= T.COPY_SOURCES_MIN_SHARE
    wrong = torch.isfinite(a) & finite_g & (a != g)
    a_tag = _tag_of(a[wrong], ordered, order)
    n = int(wrong.sum())
    copied = float((a_tag >= 0).double().mean()) if n else 0.0
    positions = torch.nonzero(wrong).flatten()
    examples = []
    for i in torch.nonzero(a_tag >= 0).flatten()[:3].tolist():
        ref = int(g_tag[positions[i]])
        examples.append((int(positions[i]), tagger.source(int(a_tag[i])), tagger.source(ref) if ref >= 0 else None))
    distinct = int(torch.unique(a_tag[a_tag >= 0]).numel())
    return Traced(copy_op, n, copied, distinct, examples)
