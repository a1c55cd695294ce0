"""Output provenance on the interpreter: does the output depend on what the Triton kernels stored?

A forward can launch a token kernel and return what torch computed (hidden from the recorded torch
calls with `torch._C.DisableTorchFunction()`). The test is an intervention, not a rule about ops:
one more forward of the first seed runs with every floating value a Triton kernel stores (plain
and atomic stores) nudged by 2^-5 of itself (2^-10 where it is 0: more than a bf16 ulp, so the store
cannot round it back). An output element that comes
out bitwise the same did not depend on any stored value; one computed from them (directly, or by
torch after the kernel: an epilogue, a cast, a split-K sum) changes. The nudge keeps values finite
and close, so a forward that turns stored floats into indices stays in bounds: NaN would not.

Booleans and 8-bit integers (masks, flags) are flipped in their lowest bit; wider integers are left
alone (a nudged index could address memory out of bounds). A floating output whose forward stored
nothing nudgeable was not computed by its kernels either. The trusted parent decides: meta["provenance"] is
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
        if not self.active or not isinstance(data, np.ndarray):
            return handle
        if data.dtype.kind == "f":
            changed = _nudged(data)
        elif data.dtype.kind == "b":  # a mask the forward may turn into floats: flipped
            changed = ~data
        elif data.dtype.kind in "iu" and data.dtype.itemsize == 1:  # int8 flags and masks, never an index
            changed = data ^ data.dtype.type(1)
        else:
            return handle
        self.nudged_elements += int(data.size)
        return type(handle)(changed, handle.dtype)

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
        return [
            {"elements": t.numel(), "unchanged": t.numel(), "comparable": False, "floating": t.is_floating_point()}
            for t in first
        ]
    counts = []
    for a, b in zip(first, nudged, strict=True):
        if a.shape != b.shape or a.dtype != b.dtype:
            counts.append(
                {"elements": a.numel(), "unchanged": a.numel(), "comparable": False, "floating": a.is_floating_point()}
            )
            continue
        same = _bitwise_same(a.reshape(-1), b.reshape(-1))
        counts.append(
            {"elements": a.numel(), "unchanged": int(same.sum()), "comparable": True, "floating": a.is_floating_point()}
        )
    return counts


def _bitwise_same(a: torch.Tensor, b: torch.Tensor) -> np.ndarray:
    """Element-wise bit equality, through numpy (torch's == can be patched by the candidate)."""
    raw_a, raw_b = (np.frombuffer(bytes(t.contiguous().view(torch.uint8).numpy()), dtype=np.uint8) for t in (a, b))
    size = a.element_size()
    return (raw_a.reshape(-1, size) == raw_b.reshape(-1, size)).all(axis=1)
