"""How much of a forward's device time its Triton kernels take (cuda), by the torch profiler's CUDA
activity: a forward that launches a token kernel and has torch (cuBLAS, cuDNN, ...) compute the
output spends its device time elsewhere, and the other kernels' names say where. Counts only: the
trusted parent reports them. Any failure of the profiler (no CUPTI, a sandbox that refuses it) is a
note, never an error of the run.

Fills, memsets and copies are left out of the total: the harness itself poisons the forward's empty
allocations (a fill) and moves inputs between guard margins (copies), which says nothing about who
computed the output; torch's arithmetic kernels (elementwise, reductions, GEMMs) all count."""

from __future__ import annotations

import collections

import torch

MAX_OTHER_KERNELS = 3


class DeviceProfile:
    """A context manager around the model's call alone (not the harness's checks after it): `report` is
    {"measured", "triton_us", "total_us", "other", ...} once it exits, or {"measured": False, "note"}."""

    def __init__(self, triton_kernels: set[str]):
        self.triton_kernels = triton_kernels
        self.report: dict = {"measured": False, "note": "not run"}
        self._prof = None

    def __enter__(self):
        try:
            from torch.profiler import ProfilerActivity, profile

            self._prof = profile(activities=[ProfilerActivity.CUDA])
            self._prof.__enter__()
        except Exception as exc:  # noqa: BLE001 - no CUPTI, a sandbox that refuses it: a note, not an error
            self._prof, self.report = None, {"measured": False, "note": f"the profiler did not start: {str(exc)[:200]}"}
        return self

    def __exit__(self, *exc_info):
        if self._prof is None:
            return False
        try:
            torch.cuda.synchronize()
            self._prof.__exit__(None, None, None)
            self.report = _shares(self._prof, self.triton_kernels)
        except Exception as exc:  # noqa: BLE001
            self.report = {"measured": False, "note": f"the profiler failed: {str(exc)[:200]}"}
        return False


def _shares(prof, triton_kernels: set[str]) -> dict:
    per_kernel: collections.defaultdict[str, float] = collections.defaultdict(float)
    for event in prof.events():
        us = float(getattr(event, "device_time", 0.0) or getattr(event, "cuda_time", 0.0) or 0.0)
        if us > 0 and str(getattr(event, "device_type", "")).endswith("CUDA"):
            per_kernel[str(event.name)] += us
    moved = {name: us for name, us in per_kernel.items() if _moves_data(name)}
    for name in moved:
        del per_kernel[name]
    total = sum(per_kernel.values())
    if not total:
        return {"measured": False, "note": "the profiler recorded no device activity"}
    triton = sum(us for name, us in per_kernel.items() if _is_triton(name, triton_kernels))
    others = sorted(((n, us) for n, us in per_kernel.items() if not _is_triton(n, triton_kernels)), key=lambda p: -p[1])
    return {
        "measured": True,
        "triton_us": triton,
        "total_us": total,
        "fills_and_copies_us": sum(moved.values()),
        "other": [[name[:120], us] for name, us in others[:MAX_OTHER_KERNELS]],
    }


def _moves_data(name: str) -> bool:
    return name.startswith(("Memset", "Memcpy")) or any(p in name for p in ("FillFunctor", "copy_kernel"))


def _is_triton(name: str, triton_kernels: set[str]) -> bool:
    """A device kernel of one of the forward's Triton functions (the compiled kernel carries its name)."""
    return name in triton_kernels or name.split("(")[0] in triton_kernels
