"""Output provenance on the interpreter: does the output depend on what the Triton kernels stored?

A forward can launch a token kernel and return what torch computed (hidden from the recorded torch
calls with `torch._C.DisableTorchFunction()`). The test is an intervention, not a rule about ops:
one more forward of the first seed runs with every floating value a Triton kernel stores (plain
and atomic stores) nudged by 2^-5 of itself (2^-10 where it is 0: more than a bf16 ulp, so the store
cannot round it back). An output element that comes
out bitwise the same did not depend on any stored value; one computed from them (directly, or by
torch after the kernel: an epilogue, a cast, a split-K sum) changes. The nudge keeps values finite
and close, so a forward that turns stored floats into indices stays in bounds: NaN would not.

Integer stores are left alone (a nudged index could address memory out of bounds): a forward whose
kernels stored no floating value is not judged. The trusted parent decides: meta["provenance"] is
only the counts.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

RELATIVE = 2.0**-5
AT_ZERO = 2.0**-10


def _nudged(data: np.ndarray) -> np.ndarray:
    return np.where(data == 0, data.dtype.type(AT_ZERO), data + data * data.dtype.type(RELATIVE)).astype(data.dtype)


class StoreNudge:
    """Installed once per job; nudges floating stores only while `active`."""

    def __init__(self):
        self.active = False
        self.nudged_elements = 0

    def _value(self, handle):
        data = getattr(handle, "data", None)
        if not self.active or not isinstance(data, np.ndarray) or data.dtype.kind != "f":
            return handle
        self.nudged_elements += int(data.size)
        return type(handle)(_nudged(data), handle.dtype)

    def install(self) -> None:
        from triton.runtime import interpreter

        builder = interpreter.InterpreterBuilder
        store, rmw = builder.create_masked_store, builder.create_atomic_rmw
        nudge = self

        @functools.wraps(store)
        def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
            return store(self, ptrs, nudge._value(value), mask, *args, **kwargs)

        @functools.wraps(rmw)
        def create_atomic_rmw(self, op, ptr, val, mask, *args, **kwargs):
            return rmw(self, op, ptr, nudge._value(val), mask, *args, **kwargs)

        builder.create_masked_store = create_masked_store  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        builder.create_atomic_rmw = create_atomic_rmw  # pyright: ignore[reportAttributeAccessIssue] (a patch)


def unchanged_elements(first: list[torch.Tensor], nudged: list[torch.Tensor]) -> list[dict]:
    """Per output: its element count, and how many came out bitwise the same under the nudge (all of
    them when the nudged forward returned another structure: nothing is claimed then)."""
    if len(first) != len(nudged):
        return [{"elements": t.numel(), "unchanged": t.numel(), "comparable": False} for t in first]
    counts = []
    for a, b in zip(first, nudged, strict=True):
        if a.shape != b.shape or a.dtype != b.dtype:
            counts.append({"elements": a.numel(), "unchanged": a.numel(), "comparable": False})
            continue
        same = _bitwise_same(a.reshape(-1), b.reshape(-1))
        counts.append({"elements": a.numel(), "unchanged": int(same.sum()), "comparable": True})
    return counts


def _bitwise_same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dtype.is_floating_point and a.element_size() in (2, 4, 8):
        view = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return a.contiguous().view(view) == b.contiguous().view(view)
    return a == b
