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

from sandbox.harness import common

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
    them when the nudged forward returned another structure: nothing is claimed then). A floating
    element that is NaN or Inf in the first forward is not counted (`nonfinite`): a nudge of 2^-5
    leaves NaN and Inf what they are, so it says nothing about where they came from."""
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
        finite = _finite(a.reshape(-1))
        counts.append(
            {
                "elements": int(finite.sum()),
                "unchanged": int((same & finite).sum()),
                "nonfinite": int(a.numel() - finite.sum()),
                "comparable": True,
                "floating": a.is_floating_point(),
            }
        )
    return counts


#: The exponent bits of each floating dtype by its name: all ones is Inf or NaN.
_EXPONENT = {
    "torch.float16": (np.uint16, 0x7C00),
    "torch.bfloat16": (np.uint16, 0x7F80),
    "torch.float32": (np.uint32, 0x7F800000),
    "torch.float64": (np.uint64, 0x7FF0000000000000),
}


def _finite(t: torch.Tensor) -> np.ndarray:
    """Element-wise: not NaN or Inf (every element of a non-floating tensor), from the bits, through numpy."""
    exponent = _EXPONENT.get(str(t.dtype))
    if exponent is None:
        return np.ones(t.numel(), dtype=bool)
    kind, mask = exponent
    bits = np.frombuffer(bytes(t.contiguous().view(torch.uint8).numpy()), dtype=kind)
    return (bits & kind(mask)) != kind(mask)


def _bitwise_same(a: torch.Tensor, b: torch.Tensor) -> np.ndarray:
    """Element-wise bit equality, through numpy (torch's == can be patched by the candidate)."""
    raw_a, raw_b = (np.frombuffer(bytes(t.contiguous().view(torch.uint8).numpy()), dtype=np.uint8) for t in (a, b))
    size = a.element_size()
    return (raw_a.reshape(-1, size) == raw_b.reshape(-1, size)).all(axis=1)


#: TritonSemantic methods whose argument after the pointer (or descriptor) is the value stored.
_STORING = (
    "store",
    "atomic_store",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_xchg",
    "descriptor_store",
    "descriptor_atomic_add",
    "descriptor_atomic_max",
    "descriptor_atomic_min",
    "descriptor_atomic_and",
    "descriptor_atomic_or",
    "descriptor_atomic_xor",
)


class CompiledStoreNudge:
    """The same nudge for compiled kernels (cuda): every kernel the nudged forward launches is compiled
    again with its stored values nudged in the IR (TritonSemantic's store and atomics, Triton >= 3.4),
    into a cache of its own (the kernels' in-memory caches swapped out, a temporary Triton cache dir),
    so neither the nudged binaries nor the plain ones leak into the other forward. Counts the store
    sites it nudged (elements are not counted on a device). A launch that bypasses JITFunction.run (a
    precompiled kernel object) cannot be nudged: `bypassed` says so and nothing is claimed."""

    def __init__(self):
        self.active = False
        self.nudged_sites = 0
        self.launches = 0
        self._swapped: dict = {}
        self._cache: tuple | None = None
        self.unsupported: str | None = None

    def install(self) -> bool:
        try:
            from triton.language.semantic import TritonSemantic
            from triton.runtime.jit import JITFunction
        except ImportError as exc:  # triton-ascend and Triton < 3.4: semantic functions, not a class
            self.unsupported = f"this Triton has no TritonSemantic class ({exc})"
            return False
        for name in _STORING:
            original = getattr(TritonSemantic, name, None)
            if original is not None:
                setattr(TritonSemantic, name, self._storing(original))
        JITFunction.run = self._launching(JITFunction.run)  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        return True

    def _storing(self, original):
        nudge = self

        @functools.wraps(original)
        def storing(sem, target, value, *args, **kwargs):
            if nudge.active:
                changed = _nudged_ir(sem, value)
                if changed is not None:
                    nudge.nudged_sites += 1
                    value = changed
            return original(sem, target, value, *args, **kwargs)

        return storing

    def _launching(self, original):
        nudge = self

        @functools.wraps(original)
        def run(fn, *args, **kwargs):
            if nudge.active and not kwargs.get("warmup"):
                nudge.launches += 1
                if id(fn) not in nudge._swapped:  # compiled again, nudged, kept apart from the plain binaries
                    nudge._swapped[id(fn)] = (fn, fn.device_caches)
                    fn.device_caches = type(fn.device_caches)(fn.create_binder)
            return original(fn, *args, **kwargs)

        return run

    def begin(self) -> None:
        import tempfile

        from triton import knobs

        self.active, self.nudged_sites, self.launches = True, 0, 0
        explicit = "dir" in vars(knobs.cache)
        self._cache = (explicit, knobs.cache.dir, tempfile.mkdtemp(prefix="nudged-triton-"))
        knobs.cache.dir = self._cache[2]

    def end(self) -> None:
        import shutil

        from triton import knobs

        self.active = False
        for fn, caches in self._swapped.values():
            fn.device_caches = caches
        self._swapped.clear()
        if self._cache is not None:
            explicit, previous, directory = self._cache
            if explicit:
                knobs.cache.dir = previous
            else:
                del knobs.cache.dir
            shutil.rmtree(directory, ignore_errors=True)
            self._cache = None


def _binary(op, a, b):
    """A TritonSemantic arithmetic call: some versions take a `sanitize_overflow` flag, some do not."""
    try:
        return op(a, b, False)
    except TypeError:
        return op(a, b)


def _nudged_ir(sem, value):
    """The nudged value in the kernel's IR (as _nudged does to the interpreter's arrays), or None for a
    value that is not nudged (wider integers, pointers, scalars that are not tensors)."""
    import triton.language as tl

    if not isinstance(value, tl.tensor):
        return None
    scalar = value.dtype  # the element type (of a block or a scalar)
    if scalar.is_floating():
        wide = value if scalar.primitive_bitwidth >= 32 else sem.cast(value, tl.float32)
        scaled = _binary(sem.mul, wide, 1.0 + RELATIVE)
        at_zero = _binary(sem.mul, sem.cast(sem.equal(wide, 0.0), wide.dtype), AT_ZERO)
        nudged = _binary(sem.add, scaled, at_zero)
        return nudged if wide is value else sem.cast(nudged, scalar)
    if scalar.is_int1() or (scalar.is_int() and scalar.primitive_bitwidth == 8):
        flip = sem.to_tensor(True) if scalar.is_int1() else sem.cast(sem.to_tensor(1), scalar)
        return sem.cast(sem.xor_(value, flip), scalar)
    return None


#: The most elements of a read tensor compared with the inputs' values (evenly spaced).
READ_SAMPLE = 1 << 16
#: The most input elements whose values are indexed (every one of them: a permuted copy reads them in another
#: order than any sample would); beyond it no argument is called computed (`copy`: nothing is claimed).
KNOWN_LIMIT = 1 << 25


class LaunchReads:
    """Where what the kernels read comes from, in the nudged forward: a candidate whose kernels only copy what
    torch computed (or store zeros that torch's answer is added to) passes the nudge, as its output depends on
    what they stored. Per launch, each tensor argument the kernel did not change (bitwise, before and after) is
    classed:
    - `input`: it shares a storage with an input, a parameter or a buffer of the model (a view of one);
    - `kernel`: an earlier launch of this forward wrote it;
    - `copy`: every finite value of it (a sample) is one of the inputs' values cast to its dtype, 0, or its most
      frequent value (a fill), and some is none of those: a cast, pad, permute or concat of inputs;
    - `constant`: one value throughout (a zero-filled state);
    - `computed`: torch made it from something.
    A changed argument counts as `copy` as well where its contents before the launch were one (a kernel that works
    in place on a clone). Hooked outside the launch guards, so it sees the candidate's own tensors."""

    def __init__(self):
        self.active = False
        self.reads: dict[str, int] = {}
        self.computed_by: list[str] = []  # kernels that read a floating tensor torch computed
        self._storages: set[int] = set()
        self._written: set[int] = set()
        self._inputs: list[torch.Tensor] = []
        self._values: dict[torch.dtype, np.ndarray] = {}

    def begin(self, sources: list[torch.Tensor]) -> None:
        """The forward's inputs, parameters and buffers (as the model sees them: guarded)."""
        self.reads, self.computed_by, self._written, self._values = {}, [], set(), {}
        self._inputs = [t.detach() for t in sources if isinstance(t, torch.Tensor) and t.numel()]
        self._storages = {_storage(t) for t in self._inputs}

    def report(self) -> dict:
        return {"reads": dict(self.reads), "computed_by": list(self.computed_by), "input_tensors": len(self._inputs)}

    def install(self, interpreter: bool) -> None:
        reads = self
        if interpreter:
            from triton.runtime import interpreter as module

            owner, attribute = module.GridExecutor, "__call__"
        else:
            from triton.runtime.jit import JITFunction

            owner, attribute = JITFunction, "run"
        original = getattr(owner, attribute)

        @functools.wraps(original)
        def launch(fn, *args, **kwargs):
            if not reads.active or kwargs.get("warmup"):
                return original(fn, *args, **kwargs)
            tensors = [t for a in (*args, *kwargs.values()) if isinstance(t := _tensor_of(a), torch.Tensor)]
            with torch._C.DisableTorchFunction():
                # host copies: no device kernel of ours runs in the forward whose device time is profiled (a
                # comparison there would count as torch's work beside the Triton kernels), nor doubles its memory
                before = [common.host_copy(t) for t in tensors]
            result = original(fn, *args, **kwargs)
            reads._classify(getattr(getattr(fn, "fn", fn), "__name__", "?"), tensors, before)
            return result

        setattr(owner, attribute, launch)

    def _classify(self, kernel: str, tensors: list[torch.Tensor], before: list[torch.Tensor]) -> None:
        with torch._C.DisableTorchFunction():
            for device, then in zip(tensors, before, strict=True):
                storage, now = _storage(device), common.to_cpu(device)
                if not common.bitwise_equal(now, then):
                    self._written.add(storage)
                    if self._copy(then):
                        self._count("copy")
                    continue
                kind = (
                    "input"
                    if storage in self._storages
                    else "kernel"
                    if storage in self._written
                    else "copy"
                    if self._copy(now)
                    else "constant"
                    if _constant(now)
                    else "computed"
                )
                self._count(kind)
                if kind == "computed" and now.is_floating_point() and kernel not in self.computed_by:
                    self.computed_by.append(kernel)

    def _count(self, kind: str) -> None:
        self.reads[kind] = self.reads.get(kind, 0) + 1

    def _copy(self, t: torch.Tensor) -> bool:
        """Every finite value of `t` (a sample) is an input's value in its dtype, 0, or the one value it holds most
        often (a fill: `torch.ones(...)` with the inputs copied into it), and some is none of the last two."""
        values = _sample(t)
        values = values[np.isfinite(values)]
        if values.size:
            distinct, counts = np.unique(values, return_counts=True)
            if counts.max() > 1:
                values = values[values != distinct[counts.argmax()]]
        if not values.size or not values.any():
            return False
        if sum(t.numel() for t in self._inputs) > KNOWN_LIMIT:
            return True
        known = self._known(t.dtype)
        at = np.clip(np.searchsorted(known, values), 0, max(known.size - 1, 0))
        return bool(known.size) and bool(((known[at] == values) | (values == 0)).all())

    def _known(self, dtype: torch.dtype) -> np.ndarray:
        """Every value of the inputs cast to `dtype`, sorted and unique, as float64."""
        if dtype not in self._values:
            parts = [_values(common.to_cpu(t).to(dtype)) for t in self._inputs if _castable(t, dtype)]
            merged = np.concatenate(parts) if parts else np.zeros(0)
            self._values[dtype] = np.unique(merged[np.isfinite(merged)])
        return self._values[dtype]


def _tensor_of(argument: object) -> object:
    """A launch argument's tensor: itself, or the tensor a host-side descriptor wraps (TensorDescriptor.base)."""
    return argument if isinstance(argument, torch.Tensor) else getattr(argument, "base", None)


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def _castable(t: torch.Tensor, dtype: torch.dtype) -> bool:
    return not t.is_complex() and (dtype.is_floating_point or not t.is_floating_point())


def _sample(t: torch.Tensor) -> np.ndarray:
    """Up to READ_SAMPLE evenly spaced elements of `t` as float64 (bools and integers as their values)."""
    flat = t.detach().reshape(-1)
    if flat.numel() > READ_SAMPLE:
        flat = flat[:: -(-flat.numel() // READ_SAMPLE)]
    return _values(flat)


def _values(t: torch.Tensor) -> np.ndarray:
    """Every element of `t` as float64 (none of a complex tensor)."""
    return t.detach().reshape(-1).to("cpu", torch.float64).numpy() if not t.is_complex() else np.zeros(0)


def _constant(t: torch.Tensor) -> bool:
    values = _sample(t)
    return bool(values.size) and bool((values == values[0]).all())
