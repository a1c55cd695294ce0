"""Candidates that pass run_accuracy but cheat a timer (real Triton kernels), for benchmark_kernel's tests.

Every one builds its state per instance: run_accuracy builds a fresh ModelNew for every seed (and
for the determinism re-run), so each passes accuracy; the timing job times one instance, where the
cheat shows. `relu_task(rows, cols)` is the reference they are timed against.
"""

from __future__ import annotations


def relu_task(rows: int, cols: int) -> str:
    return f"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn({rows}, {cols})]


def get_init_inputs():
    return []
"""


KERNEL = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def launch(x, out):
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
"""

HONEST = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def forward(self, x):
        return launch(x, torch.empty_like(x))
"""
)

#: Computes once, then returns the same tensor whatever the inputs.
CACHED_OUTPUT = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = None

    def forward(self, x):
        if self.cached is None:
            self.cached = launch(x, torch.empty_like(x))
        return self.cached
"""
)

#: Skips the launch when it is handed the same buffer again (keyed by its address).
SKIP_SAME_BUFFER = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.key = self.out = None

    def forward(self, x):
        key = (x.data_ptr(), tuple(x.shape))
        if key != self.key:
            self.key, self.out = key, launch(x, torch.empty_like(x))
        return self.out
"""
)

#: Skips the launch while the buffer's version counter says it was not written since: right
#: outputs whenever the inputs change, no work when they repeat. Only the timing shows it.
SKIP_UNCHANGED_INPUT = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.key = self.out = None

    def forward(self, x):
        key = (x.data_ptr(), x._version)
        if key != self.key:
            self.key, self.out = key, launch(x, torch.empty_like(x))
        return self.out
"""
)

#: Launches on its own stream (after waiting for the inputs) and returns without making the
#: caller's stream wait: events on the caller's stream time nothing. (run_accuracy synchronises
#: the whole device after the forward, so the output is complete there.)
SIDE_STREAM = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = None

    def forward(self, x):
        out = torch.empty_like(x)
        if not x.is_cuda:
            return launch(x, out)
        if self.side is None:
            self.side = torch.cuda.Stream()
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            launch(x, out)
        return out
"""
)

#: Honest kernel, but its import slows the reference's forward in the process that times both (the
#: reference is imported first there): a spin on the device (cuda) or a sleep (a host clock).
SLOWED_REFERENCE = (
    KERNEL
    + """
import sys
import time


def _slowed(forward):
    def slow(self, *args):
        if args and getattr(args[0], "is_cuda", False):
            torch.cuda._sleep(2_000_000)
        else:
            time.sleep(0.003)
        return forward(self, *args)
    return slow


_reference = sys.modules.get("reference")
if _reference is not None and hasattr(_reference, "Model"):
    _reference.Model.forward = _slowed(_reference.Model.forward)


class ModelNew(nn.Module):
    def forward(self, x):
        return launch(x, torch.empty_like(x))
"""
)

#: Honest kernel, but its import replaces the clocks the timing reads, so that its own forwards look short:
#: the host clock runs back by the time each of its forwards took; on cuda an event recorded right after its
#: forward makes the pair it ends read a tenth of its time.
PATCHED_CLOCK = (
    KERNEL
    + """
import time

_real_clock = time.perf_counter
_hidden = [0.0]
_mine = [False]
time.perf_counter = lambda: _real_clock() - _hidden[0]

if torch.cuda.is_available():
    _real_record, _real_elapsed = torch.cuda.Event.record, torch.cuda.Event.elapsed_time

    def _record(self, stream=None):
        self.ends_mine, _mine[0] = _mine[0], False
        return _real_record(self, stream)

    def _elapsed(self, end):
        real = _real_elapsed(self, end)
        return real / 10 if getattr(end, "ends_mine", False) else real

    torch.cuda.Event.record, torch.cuda.Event.elapsed_time = _record, _elapsed


class ModelNew(nn.Module):
    def forward(self, x):
        began = _real_clock()
        out = launch(x, torch.empty_like(x))
        _hidden[0] += _real_clock() - began
        _mine[0] = True
        return out
"""
)
