"""How a comparison is configured (the comparator's own view of the task options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sandbox.protocol import KernelEvalError
from tools.compare.chunks import DEFAULT_CHUNK

if TYPE_CHECKING:
    from tools.models.compare import CompareSettings


class CompareInputError(KernelEvalError, ValueError):
    """The comparison itself was asked wrongly (bad golden / CPU tensors, unknown dtype, ...).

    Distinct from a candidate that fails: this is the caller's mistake and gets a usage error.
    """

    blame = "caller"


@dataclass(frozen=True)
class CompareOptions:
    standard: str = "three_dim"
    #: Custom MERE thresholds per dtype name (docs/comparator.md, "custom threshold").
    thresholds: dict[str, float] = field(default_factory=dict)
    #: Reduction length (catlass rtol switch; diagnosis). None = unknown.
    compute_num: int | None = None
    #: three_dim normal range: "absolute" or "cpu_relative" (CATLASS ErrorMetrics style).
    normal_range: str = "absolute"
    top_k: int = 5
    chunk: int = DEFAULT_CHUNK
    #: Accept an actual tensor stored in a wider float dtype when every value is exactly
    #: representable in the compared dtype (numpy has no bfloat16 / float8: dumps are upcast).
    allow_lossless_upcast: bool = False


def options_from(settings: CompareSettings, **extra) -> CompareOptions:
    """The comparator's options from a request's comparison settings (run_accuracy, compare)."""
    return CompareOptions(
        standard=settings.standard,
        thresholds=dict(settings.thresholds),
        compute_num=settings.compute_num,
        normal_range=settings.normal_range,
        **extra,
    )
