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


def profiled(forward, triton_kernels: set[str]) -> tuple[object, dict]:
    """forward() under the profiler; its result and {"measured", "triton_us", "total_us", "other"}."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError as exc:
        return forward(), {"measured": False, "note": f"no torch.profiler ({exc})"}
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            out = forward()
            torch.cuda.synchronize()
    except RuntimeError as exc:  # the forward's own errors are not RuntimeErrors of the profiler alone
        if "profil" not in str(exc).lower() and "cupti" not in str(exc).lower():
            raise
        return forward(), {"measured": False, "note": f"the profiler failed: {str(exc)[:200]}"}
    return out, _shares(prof, triton_kernels)


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
