"""Instruments installed in the candidate's process before its module is imported.

- LaunchRecorder counts Triton kernel launches (interpreter: GridExecutor.__call__; compiled:
  JITFunction.run and the launch_enter_hook); on the interpreter it also installs
  interpreter_compat (compiled Triton's behaviour there: scalars, libdevice, bf16, driver, ...).
- ForwardMonitor (a TorchFunctionMode) fills empty allocations with NaN (integers with a
  sentinel), so unwritten output elements and leftover memory show, places them and filled ones
  (zeros, ones, full) between guard margins (sandbox.harness.guards) so stores past their ends
  show (and, on the interpreter, has sandbox.harness.read_watch record loads from the margins),
  and records which torch functions the forward called outside kernel launches.

These run in the candidate's own process: a deliberately hostile candidate can undo them. They
catch honest mistakes and lazy cheats; the numeric verdict needs no trust in them (the
candidate never holds the golden).
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable

import torch
from torch.overrides import TorchFunctionMode

from sandbox.harness import interpreter_compat, interpreter_pace
from sandbox.harness.guards import OutputGuards, guard_input
from sandbox.harness.read_watch import ReadWatch

EMPTY_FACTORIES = {
    torch.empty,
    torch.empty_like,
    torch.empty_strided,
    torch.Tensor.new_empty,
    torch.Tensor.new_empty_strided,
}
#: Allocations that start filled (zeros for atomics, ones, a fill value): guarded like empty ones,
#: their values kept, so a store past their end lands in a margin too instead of in other memory.
FILLED_FACTORIES = {
    torch.zeros,
    torch.zeros_like,
    torch.ones,
    torch.ones_like,
    torch.full,
    torch.full_like,
    torch.Tensor.new_zeros,
    torch.Tensor.new_ones,
    torch.Tensor.new_full,
}
MAX_RECORDED_CALLS = 64
#: Tensors the forward made larger than this are not copied between margins for its launches.
LAUNCH_GUARD_MAX_BYTES = 256 << 20


#: Bit patterns of the poison: quiet NaNs with a payload no arithmetic produces (computed NaNs
#: are canonical), so explain_failure can tell a never-written element from a computed NaN.
POISON_BITS = {
    torch.float64: (torch.int64, 0x7FFCA5A5A5A5A5A5),
    torch.float32: (torch.int32, 0x7FE5A5A5),
    torch.float16: (torch.int16, 0x7E5A),
    torch.bfloat16: (torch.int16, 0x7FE5),
    torch.float8_e4m3fn: (torch.uint8, 0x7F),
    torch.float8_e5m2: (torch.uint8, 0x7E),
}


def integer_sentinel(dtype: torch.dtype) -> int | None:
    """The value empty integer allocations are filled with (None: bool and non-integer dtypes)."""
    if dtype == torch.bool or dtype.is_floating_point or dtype.is_complex:
        return None
    return 0xAB if dtype == torch.uint8 else int(torch.iinfo(dtype).min)


def poison_(t: torch.Tensor) -> None:
    if t.dtype in POISON_BITS:
        view_dtype, bits = POISON_BITS[t.dtype]
        if t.is_contiguous():
            t.view(view_dtype).fill_(bits)
        else:
            t.fill_(float("nan"))
    elif t.is_floating_point() or t.is_complex():
        t.fill_(float("nan"))
    elif (sentinel := integer_sentinel(t.dtype)) is not None:
        t.fill_(sentinel)


class LaunchRecorder:
    def __init__(self, interpreter: bool):
        self.interpreter = interpreter
        self.launches = 0
        self.hook_launches = 0
        self.kernels: collections.Counter = collections.Counter()
        self.in_launch = 0
        self.first_launch: dict[str, tuple] = {}  # kernel name -> (jit object, args, kwargs)
        self.keep_launch_args = False
        #: interpreter: (args, kwargs) -> (args, kwargs, after) for each outer launch (guards, below)
        self.launch_arguments: Callable[[tuple, dict], tuple[tuple, dict, Callable[[], None]]] | None = None

    def _count(self, fn, args, kwargs):
        name = getattr(fn, "__name__", "?")
        self.launches += 1
        self.kernels[name] += 1

    def _keep(self, jit, args, kwargs):
        """First launch of each kernel, for compile_kernel's offline compile of that signature."""
        name = getattr(getattr(jit, "fn", None), "__name__", "?")
        if self.keep_launch_args and name not in self.first_launch and not kwargs.get("warmup"):
            self.first_launch[name] = (jit, args, {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")})

    def install(self) -> None:
        recorder = self
        if self.interpreter:
            from triton.runtime import interpreter

            original_call = interpreter.GridExecutor.__call__
            original_run = interpreter.InterpretedFunction.run

            @functools.wraps(original_call)
            def grid_call(executor, *args, **kwargs):
                recorder._count(executor.fn, args, kwargs)
                after = None
                if recorder.launch_arguments is not None and not recorder.in_launch:
                    args, kwargs, after = recorder.launch_arguments(args, kwargs)
                recorder.in_launch += 1
                try:
                    return original_call(executor, *args, **kwargs)
                finally:
                    recorder.in_launch -= 1
                    if after is not None:
                        after()

            @functools.wraps(original_run)
            def interp_run(fn_self, *args, **kwargs):
                recorder._keep(fn_self, args, kwargs)
                return original_run(fn_self, *args, **kwargs)

            interpreter.GridExecutor.__call__ = grid_call  # pyright: ignore[reportAttributeAccessIssue] (a patch)
            interpreter.InterpretedFunction.run = interp_run  # pyright: ignore[reportAttributeAccessIssue] (a patch)
            interpreter_compat.install()
            interpreter_pace.install()
        else:
            from triton.runtime.jit import JITFunction

            original = JITFunction.run

            @functools.wraps(original)
            def jit_run(fn_self, *args, **kwargs):
                if not kwargs.get("warmup"):
                    recorder._count(fn_self.fn, args, kwargs)
                recorder._keep(fn_self, args, kwargs)
                recorder.in_launch += 1
                try:
                    return original(fn_self, *args, **kwargs)
                finally:
                    recorder.in_launch -= 1

            JITFunction.run = jit_run  # pyright: ignore[reportAttributeAccessIssue] (a patch)
            try:
                import triton

                def enter_hook(*_args, **_kwargs):
                    recorder.hook_launches += 1

                triton.knobs.runtime.launch_enter_hook.add(enter_hook)  # pyright: ignore[reportAttributeAccessIssue] (3.9+)
            except (AttributeError, ImportError):
                pass

    @property
    def total(self) -> int:
        return max(self.launches, self.hook_launches)


_NOT_WORTH_RECORDING = (
    "torch._C._set_grad_enabled",
    "torch.Tensor.numel",
    "torch.Tensor.dim",
    "torch.Tensor.size",
    "torch.Tensor.stride",
    "torch.Tensor.data_ptr",
    "torch.Tensor.is_contiguous",
    "torch.Tensor.element_size",
    "torch.Tensor.__getitem__",
)


def _public_name(func) -> str | None:
    """'torch.matmul', 'torch.Tensor.add_': what the forward called; None for attribute reads."""
    try:
        from torch.overrides import resolve_name

        name = resolve_name(func)
    except Exception:  # noqa: BLE001
        name = None
    if not name or name.endswith(".__get__") or name in _NOT_WORTH_RECORDING:
        return None
    return name


class ForwardMonitor(TorchFunctionMode):
    """Poisons empty allocations and records the torch functions a forward calls itself."""

    def __init__(self, recorder: LaunchRecorder, poison: bool = True, reads: ReadWatch | None = None):
        super().__init__()
        self.recorder = recorder
        self.poison = poison
        self.poisoned = 0
        self.calls: collections.Counter = collections.Counter()
        self.guards = OutputGuards()
        self.reads = reads  # the interpreter's load watch (None on compiled backends)
        #: per tensor the forward made: (it, its guarded launch copy, its version when they agreed)
        self._launch_copies: dict[int, tuple[torch.Tensor, torch.Tensor, int]] = {}

    def guard_launch(self, fill: str | None):
        """On the interpreter, guard the tensor arguments of each launch that no guard covers yet
        (tensors the forward made with torch ops: clones, tables), so their loads past the end are
        recorded too: each is copied between margins for the launch and copied back after it.
        Views into a larger allocation, and arguments that share memory with another argument, are
        left as they are (their aliasing, and what lies past a view's end, is the kernel's to use)."""
        if self.reads is None or fill is None:
            return
        self.recorder.launch_arguments = functools.partial(self._guarded_arguments, fill)

    def _guarded_arguments(self, fill: str, args: tuple, kwargs: dict):
        reads = self.reads
        assert reads is not None
        tensors = [v for v in (*args, *kwargs.values()) if isinstance(v, torch.Tensor)]
        storages = collections.Counter(t.untyped_storage().data_ptr() for t in tensors)
        swapped: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
        for t in tensors:
            alone = storages[t.untyped_storage().data_ptr()] == 1
            # only a tensor that is its whole allocation: past a view's end its storage goes on
            whole = t.storage_offset() == 0 and t.untyped_storage().nbytes() == t.numel() * t.element_size()
            if id(t) in swapped or not alone or not whole or t.device.type != "cpu" or reads.covers(t):
                continue
            guarded = self._launch_copy(t, fill)
            if guarded is not None:
                swapped[id(t)] = (t, guarded)

        def swap(v):
            return swapped[id(v)][1] if isinstance(v, torch.Tensor) and id(v) in swapped else v

        def after() -> None:  # what the kernel wrote reaches the forward's own tensor
            with torch.no_grad():
                for original, guarded in swapped.values():
                    original.copy_(guarded)
                    self._launch_copies[id(original)] = (original, guarded, original._version)

        return tuple(swap(v) for v in args), {k: swap(v) for k, v in kwargs.items()}, after

    def _launch_copy(self, t: torch.Tensor, fill: str) -> torch.Tensor | None:
        """`t`'s guarded copy for a launch: made and watched once per forward, refreshed only when
        the forward changed `t` since (a kernel launched in a loop over the same table copies it once)."""
        cached = self._launch_copies.get(id(t))
        if cached is not None and cached[0] is t:
            _, guarded, version = cached
            if t._version != version:
                with torch.no_grad():
                    guarded.copy_(t)
            return guarded
        if t.numel() * t.element_size() > LAUNCH_GUARD_MAX_BYTES:
            return None
        guarded = guard_input(t.detach(), fill, integers=True)
        if guarded is t.detach() or self.reads is None:
            return None
        self.reads.watch(guarded, "a tensor the forward made")
        self._launch_copies[id(t)] = (t, guarded, t._version)
        return guarded

    def start_forward(self) -> None:
        """Forget the previous forward's guarded allocations."""
        self.guards.tracked.clear()
        self._launch_copies.clear()
        if self.reads is not None:
            self.reads.reset()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.recorder.in_launch:
            return out
        name = _public_name(func)
        if name is not None and (len(self.calls) < MAX_RECORDED_CALLS or name in self.calls):
            self.calls[name] += 1
        empty = func in EMPTY_FACTORIES
        if self.poison and (empty or func in FILLED_FACTORIES) and isinstance(out, torch.Tensor):
            guarded = self.guards.allocate(out)
            if guarded is not out:
                if not empty:
                    guarded.copy_(out)
                if self.reads is not None:
                    self.reads.watch(guarded, f"output allocation {len(self.guards.tracked) - 1}")
            if empty:
                poison_(guarded)
                self.poisoned += 1
            out = guarded
        return out
