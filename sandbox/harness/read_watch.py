"""Loads that reach into the guard margins: out-of-bounds reads the output does not show (cpu).

The guards (sandbox.harness.guards) place inputs, parameters and output allocations between
margins that no tensor owns; at each launch every other tensor argument (one the forward made
with torch ops: a clone, a cos/sin table) is copied between margins for the launch and back. A
NaN margin shows an unmasked load only when the lane it fed is
stored; the usual tail bug (`tl.load(x + offs)` without a mask, `tl.store(..., mask=mask)`) reads
past the end and throws the lanes away, so the output is right and the run passes, while on a
GPU the same load reads other memory or faults at a page boundary.

On the Triton interpreter every load (plain, masked, atomic, block pointer, tensor descriptor)
goes through InterpreterBuilder.create_masked_load with the address of every lane and the mask.
ReadWatch wraps it and records each enabled lane whose address lies in a margin: memory outside
every tensor the kernel was given. Compiled backends offer no such hook: there the check does
not run (the result says so).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import torch

from sandbox.harness import common

#: Regions watched at once (two margins per guarded tensor); allocations past it go unwatched.
MAX_REGIONS = 1024


@dataclass
class _Margin:
    label: str  # "input 0", "output allocation 1"
    shape: tuple
    start: int  # bytes, [start, end)
    end: int
    element_size: int
    after: bool  # the margin after the tensor's last element (else before its first)
    hit: np.ndarray = field(init=False)  # per margin element: was it read
    lines: set[int] = field(default_factory=set)  # the candidate's lines whose loads read it

    def __post_init__(self):
        self.hit = np.zeros((self.end - self.start) // self.element_size, dtype=bool)


def margins_of(tensor: torch.Tensor, label: str) -> list[_Margin]:
    """The two margins around `tensor`, a view into the middle of its guard buffer."""
    storage = tensor.untyped_storage()
    size = tensor.element_size()
    first, last = tensor.data_ptr(), tensor.data_ptr() + tensor.numel() * size
    begin, end = storage.data_ptr(), storage.data_ptr() + storage.nbytes()
    shape = tuple(tensor.shape)
    found = []
    if first > begin:
        found.append(_Margin(label, shape, begin, first, size, after=False))
    if end > last:
        found.append(_Margin(label, shape, last, end, size, after=True))
    return found


class ReadWatch:
    """Counts the distinct margin elements the kernels' enabled load lanes read."""

    def __init__(self, source_path: str | None = None):
        self.source_path = source_path  # the candidate's file: its frames give the reading lines
        self.margins: list[_Margin] = []
        self._bounds = np.zeros(0, dtype=np.uint64)  # [start0, end0, start1, end1, ...], sorted
        self._buffers: set[int] = set()  # storage addresses of the guard buffers watched

    def reset(self) -> None:
        self.margins = []
        self._bounds = np.zeros(0, dtype=np.uint64)
        self._buffers = set()

    def covers(self, tensor: torch.Tensor) -> bool:
        """Does `tensor` live in a guard buffer watched here (a guarded tensor or a view of one)?"""
        return tensor.untyped_storage().data_ptr() in self._buffers

    def watch(self, tensor: torch.Tensor, label: str) -> None:
        """Watch the margins of a tensor the guards placed in a larger buffer."""
        if len(self.margins) + 2 > MAX_REGIONS:
            return
        self._buffers.add(tensor.untyped_storage().data_ptr())
        self.margins += margins_of(tensor, label)
        self.margins.sort(key=lambda m: m.start)
        self._bounds = np.array([b for m in self.margins for b in (m.start, m.end)], dtype=np.uint64)

    def check(self, addresses, mask) -> None:
        if not self.margins:
            return
        lanes = np.asarray(addresses, dtype=np.uint64)
        if mask is not None:
            lanes = lanes[np.broadcast_to(np.asarray(mask, dtype=bool), lanes.shape)]
        lanes = lanes.ravel()
        if not lanes.size:
            return
        slot = np.searchsorted(self._bounds, lanes, side="right")  # odd: inside [start_k, end_k)
        inside = (slot & 1) == 1
        if not inside.any():
            return
        line = self._line()
        for index in np.unique(slot[inside] // 2):
            margin = self.margins[int(index)]
            hits = lanes[inside & (slot // 2 == index)]
            margin.hit[((hits - np.uint64(margin.start)) // np.uint64(margin.element_size)).astype(np.int64)] = True
            if line:
                margin.lines.add(line)

    def _line(self) -> int:
        """The candidate's line on the stack (its kernel's frame), 0 when there is none."""
        return common.candidate_line(self.source_path, depth=3)

    def found(self) -> list[dict]:
        """Per tensor whose margins were read: how many elements before its start and after its end."""
        per_tensor: dict[str, dict] = {}
        for m in self.margins:
            count = int(m.hit.sum())
            if not count:
                continue
            entry = per_tensor.setdefault(
                m.label,
                {"tensor": m.label, "shape": list(m.shape), "elements_before": 0, "elements_after": 0, "lines": []},
            )
            entry["elements_after" if m.after else "elements_before"] += count
            entry["lines"] = sorted(set(entry["lines"]) | m.lines)
        # by tensor ('input 0' before 'input 1', whatever their addresses): the first is what a report names
        return sorted(per_tensor.values(), key=lambda e: [int(t) if t.isdigit() else t for t in e["tensor"].split()])

    def install(self) -> None:
        """Wrap the interpreter's load (call after the other interpreter patches)."""
        from triton.runtime import interpreter

        builder = interpreter.InterpreterBuilder
        original = builder.create_masked_load
        watch = self

        @functools.wraps(original)
        def create_masked_load(self, ptrs, mask, *args, **kwargs):
            watch.check(ptrs.data, None if mask is None else mask.data)
            return original(self, ptrs, mask, *args, **kwargs)

        builder.create_masked_load = create_masked_load  # pyright: ignore[reportAttributeAccessIssue] (a patch)
