"""The clocks the timing job reads, bound before any candidate code runs, and a check that none was replaced.

A candidate rewarded for speed can replace what the job reads time with (time.perf_counter, torch.cuda.Event's
record / elapsed_time, torch.cuda.synchronize / current_stream) from its import or its forward, so that its
own forwards look shorter. The job reads time only through the objects bound here when the harness is
imported (before the reference and the candidate are), so a replacement in a module or a class does not
reach it; and `Watch.changed()` names every watched object that is no longer the one bound, or whose code
was swapped, which benchmark_kernel flags (timer_patched): a forward that touches the clocks is not timed
honestly whatever it gained. Code that rewrites the process's memory (ctypes) is beyond what a check in
the candidate's own process can see.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch

#: the host clock of every host time the job reports
perf_counter = time.perf_counter


def _cuda_objects() -> dict[str, Callable[[], object]]:
    cuda = torch.cuda
    return {
        "torch.cuda.Event": lambda: cuda.Event,
        "torch.cuda.Event.record": lambda: cuda.Event.record,
        "torch.cuda.Event.elapsed_time": lambda: cuda.Event.elapsed_time,
        "torch.cuda.synchronize": lambda: cuda.synchronize,
        "torch.cuda.current_stream": lambda: cuda.current_stream,
    }


#: what is watched: a name and how to look it up now
WATCHED: dict[str, Callable[[], object]] = {
    "time.perf_counter": lambda: time.perf_counter,
    "time.perf_counter_ns": lambda: time.perf_counter_ns,
    "time.monotonic": lambda: time.monotonic,
    **_cuda_objects(),
}


#: each watched object as bound at import, with its code where it is a Python function (a function can keep
#: its identity and swap its __code__); held here, so identity is compared, never a reusable id
BOUND = {name: look() for name, look in WATCHED.items()}
_CODE = {name: getattr(obj, "__code__", None) for name, obj in BOUND.items()}


#: the cuda clock's calls as bound at import (the class's methods themselves, not looked up on an instance)
cuda_event = torch.cuda.Event
cuda_record = torch.cuda.Event.record
cuda_elapsed = torch.cuda.Event.elapsed_time
cuda_synchronize = torch.cuda.synchronize
cuda_current_stream = torch.cuda.current_stream


def changed() -> list[str]:
    """The watched objects that are no longer those bound at import (replaced, or their code swapped)."""
    found = []
    for name, look in WATCHED.items():
        try:
            now = look()
            same = now is BOUND[name] and getattr(now, "__code__", None) is _CODE[name]
        except Exception:  # noqa: BLE001 - deleted, or made to raise: changed
            same = False
        if not same:
            found.append(name)
    return found
