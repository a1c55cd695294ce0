"""Which of a kernel's variables hold the index of each dimension of the tensor a load reads (cpu).

On the Triton interpreter a kernel's locals are numpy arrays while a load runs: the address of every
lane, unravelled by the input's shape, gives the coordinate each lane reads along each dimension, and
a local integer array equal to that coordinate on every unmasked lane (laid along one of the tile's
axes, as `rows[:, None]` lays it) is the variable that indexes that dimension. Kept per (load line,
input) as the names that hold it on every load checked: one coincidence does not survive the loads of
the other programs, and a coordinate that never took two values says nothing (any constant matches).
explain_failure uses it to go from "line 29 reads the wrong column of x" to "line 26 computes `iw`".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Loads of one (line, input) whose locals are compared with the coordinates; later loads add nothing.
MAX_CHECKS = 64
#: Distinct coordinate values kept per dimension (two are enough to tell a coordinate from a constant).
DISTINCT_KEPT = 4


@dataclass
class IndexNames:
    """What the checked loads of one (line, input) showed: per dimension, the names that held its coordinate
    on every one of them (None: not checked yet) and some of the coordinate's values."""

    dims: int
    checks: int = 0
    names: list[set[str] | None] = field(default_factory=list)
    distinct: list[set[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.names = [None] * self.dims
        self.distinct = [set() for _ in range(self.dims)]

    def check(self, shape: tuple[int, ...], elements: np.ndarray, local_values: dict[str, object]) -> None:
        """One load: `elements` the flat index each lane reads (-1 where masked off or elsewhere), in the tile's
        shape; `local_values` the kernel frame's locals."""
        if self.checks >= MAX_CHECKS:
            return
        valid = elements >= 0
        if not valid.any():
            return
        self.checks += 1
        coordinates = np.unravel_index(np.where(valid, elements, 0), shape)
        arrays = {name: a for name, a in ((n, _integer_array(v)) for n, v in local_values.items()) if a is not None}
        for dim, coordinate in enumerate(coordinates):
            if shape[dim] == 1 or self.names[dim] == set():
                continue
            seen = self.distinct[dim]
            if len(seen) < DISTINCT_KEPT:
                seen.update(int(v) for v in np.unique(coordinate[valid])[:DISTINCT_KEPT])
            holding = {name for name, a in arrays.items() if _holds(a, coordinate, valid)}
            previous = self.names[dim]
            self.names[dim] = holding if previous is None else previous & holding

    def found(self) -> dict[int, list[str]]:
        """dimension -> the names that held its coordinate on every check, where it took two values or more."""
        return {dim: sorted(names) for dim, names in enumerate(self.names) if names and len(self.distinct[dim]) >= 2}


def _integer_array(value: object) -> np.ndarray | None:
    """The integer values of a kernel local (an interpreter tensor or a Python int), None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return np.asarray(value)
    data = getattr(getattr(value, "handle", None), "data", None)
    if isinstance(data, np.ndarray) and data.dtype.kind in "iu":
        return data
    return None


def _holds(array: np.ndarray, coordinate: np.ndarray, valid: np.ndarray) -> bool:
    """`array` equals `coordinate` on the valid lanes, broadcast as it is or laid along one of the tile's axes."""
    for laid in _layouts(array, coordinate.shape):
        if np.array_equal(laid[valid], coordinate[valid]):
            return True
    return False


def _layouts(array: np.ndarray, shape: tuple[int, ...]):
    """The ways `array` can stand for a tile of `shape`: a scalar or an array of its rank broadcast as it is, a
    vector along each axis of its length."""
    if array.size == 1:
        yield np.broadcast_to(array.reshape(()), shape)
        return
    if array.ndim == len(shape):
        try:
            yield np.broadcast_to(array, shape)
        except ValueError:
            pass
        return
    if array.ndim == 1:
        for axis, size in enumerate(shape):
            if size == array.shape[0]:
                yield np.broadcast_to(array.reshape([-1 if a == axis else 1 for a in range(len(shape))]), shape)
