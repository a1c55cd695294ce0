"""Device warm-up a spare child does while it waits for its job, after its isolation is prepared.

Measured on an H200: a fresh process pays ~0.25 s to create the CUDA context, ~0.15 s for its first
allocation, up to ~0.45 s to load (or build) Triton's CUDA driver utilities, and a ptxas call for
the compiler's cache key. A spare pays that
while idle, so a job pays only its own imports and launches. The zygote itself never touches the
device (a driver initialised before fork is unusable in the children).
"""

from __future__ import annotations

import os
import shutil
import tempfile


def warm(backend) -> None:
    if backend.device != "cuda":
        return
    try:
        import torch

        from sandbox.harness import common, guards

        torch.cuda.init()
        probe = torch.zeros(1024, device="cuda")
        common.bitwise_equal(guards.guard_input(probe, "nan"), common.clone(probe))
        float((probe + 1).sum())
        torch.cuda.synchronize()
        common.stage_buffers()  # pinned host buffers for large copies (~45 ms)
        scratch = tempfile.mkdtemp(prefix="kernel-eval-warm-")
        os.environ["TRITON_CACHE_DIR"] = scratch
        try:
            from triton.backends.driver import GPUDriver
            from triton.compiler.compiler import make_backend
            from triton.runtime import driver

            active = driver.active
            if isinstance(active, GPUDriver):  # the CUDA (or ROCm) driver: backend.device is "cuda"
                active.get_current_device()  # builds and loads the driver's utilities once
                # Triton's base class declares get_current_target abstract (no return type); the
                # CUDA driver's returns a GPUTarget.
                target = active.get_current_target()
                make_backend(target).hash()  # pyright: ignore[reportArgumentType]  # asks ptxas for its version
        finally:
            shutil.rmtree(scratch, ignore_errors=True)  # loaded: the files are no longer needed
    except Exception:  # noqa: BLE001 - the job initialises the device itself and reports any error
        pass
