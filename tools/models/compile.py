"""compile_kernel: request and result."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.models.common import Model
from tools.models.task import (
    Backend,
    BackendInfo,
    Dtype,
    ErrorInfo,
    IsolationItem,
    JobLimitFields,
    MemoryMegabytes,
    Profile,
    TimeoutSeconds,
    Timings,
)


class CompileKernelRequest(JobLimitFields):
    """Does the candidate import and compile? Errors mapped to its own lines; per-kernel resources."""

    candidate: str = Field(
        description="Python source defining `class ModelNew(nn.Module)` with Triton kernels, or a .py path."
    )
    reference: str | None = Field(
        default=None,
        description="The task's reference (source or .py path). With it, one forward runs on real inputs so every "
        "launched kernel is compiled (GPU) or interpreted and compiled offline for sm_90 (CPU); without it only "
        "the import is checked.",
    )
    backend: Backend = "auto"
    dtype: Dtype = None
    input_profile: Profile = "task"
    estimate_resources: bool = Field(
        default=False,
        description="cpu backend: compile each launched kernel fully for sm_90 offline (ptxas) and report "
        "registers / spills / shared memory estimates (~0.3 s per kernel).",
    )
    #: shorter than run_accuracy's: a launch check of one forward; a kernel that hangs costs this, and the
    #: timeout says at which line it was (see tools/faults.py)
    timeout_s: TimeoutSeconds = 60.0
    memory_mb: MemoryMegabytes = 4096


class KernelInfo(Model):
    name: str
    target: str = Field(description="'device' for the real binary, or the offline target estimated for.")
    compiled: bool
    registers: int | None = None
    spills: int | None = Field(default=None, description="Spill bytes (stores + loads); > 0 costs performance.")
    shared_memory: int | None = Field(
        default=None, description="Bytes of shared memory per block (Triton's dynamic allocation)."
    )
    num_warps: int | None = None
    num_stages: int | None = None
    error: ErrorInfo | None = None

    def resources(self) -> str:
        """`registers 40, spills 0, warps 4, ...`: the resource numbers known, as one line."""
        known = (
            ("registers", self.registers),
            ("spills", self.spills),
            ("shared", self.shared_memory),
            ("warps", self.num_warps),
            ("stages", self.num_stages),
        )
        return ", ".join(f"{name} {value}" for name, value in known if value is not None)


class CompileKernelResult(Model):
    ok: bool
    verdict: Literal["ok", "compile_error", "runtime_error", "timeout", "crashed", "unsupported"]
    summary: str
    kernels_defined: list[str] = Field(default_factory=list, description="@triton.jit functions the module defines.")
    launched: bool = Field(default=False, description="Whether a forward ran (needs a reference for its inputs).")
    kernels: list[KernelInfo] = Field(default_factory=list)
    error: ErrorInfo | None = None
    backend: BackendInfo | None = None
    isolation: dict[str, IsolationItem] = Field(default_factory=dict)
    timings: Timings
    cached: bool = False
    warnings: list[str] = Field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    next_step: str | None = None
