"""What every tool that runs code shares: the task, its options, errors, backend, isolation."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, PrivateAttr, field_validator, model_validator

from tools import ceilings
from tools.models.common import Model

BackendName = Literal["auto", "cpu", "cuda", "npu"]
InputProfile = Literal["task", "small_values", "cancellation", "special_values", "large_magnitude"]
InputDtype = Literal["float16", "bfloat16", "float32", "float64"]
MAX_SEED = 2**63 - 1

# Fields every tool that runs code takes, with their descriptions (one definition, many models).
Backend = Annotated[
    BackendName,
    Field(description="Where the candidate runs: cpu (Triton interpreter), cuda, npu; auto picks npu > cuda > cpu."),
]
Dtype = Annotated[
    InputDtype | None,
    Field(description="Cast floating inputs (and floating parameters) to this dtype; default: the task's own dtypes."),
]
Profile = Annotated[
    InputProfile,
    Field(
        description="What the floating inputs hold. task: the task's own get_inputs(); small_values: magnitudes "
        "log-uniform over 2^-20..2^-4 (16-bit dtypes) or 2^-30..2^-8 (wider), random sign: many outputs in the "
        "small-value domain; cancellation: zero-mean values ~16 in pairs of nearly opposite sign along the last "
        "dimension (sums and matmuls cancel); special_values: randn with ~2% each of NaN, +Inf, -Inf, +0, -0 and "
        "subnormals; large_magnitude: magnitudes log-uniform over 2^(emax/4)..2^(3 emax/4) of the dtype, random "
        "sign (float16: 2^4..2^12, i.e. 16..4096; bfloat16 and float32: 2^32..2^96, up to ~8e28; float64: "
        "2^256..2^768): exposes overflow in exp, squares and sums, and can overflow torch itself (a warning says "
        "when the CPU control is not finite)."
    ),
]
TimeoutSeconds = Annotated[
    float,
    Field(
        gt=0,
        allow_inf_nan=False,
        description="Wall-clock limit per sandboxed job, in seconds (lowered to the operator's ceiling, 900 s by "
        "default).",
    ),
]
MemoryMegabytes = Annotated[
    int,
    Field(
        ge=256,
        description="Memory budget of a job in MiB (cpu backend: address-space limit; lowered to the operator's "
        "ceiling, half the RAM by default).",
    ),
]


class JobLimitFields(Model):
    """A request that starts sandboxed jobs: its memory_mb and timeout_s are lowered to the operator's
    ceilings (tools.ceilings) when it is made, and limit_notes says what the caller asked for and did not get
    (a default lowered to a ceiling is no news to a caller who never chose it)."""

    _limit_notes: list[str] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _within_ceilings(self):
        explicit = set(self.model_fields_set)
        memory_mb, timeout_s, notes = ceilings.clamp(self.memory_mb, self.timeout_s)
        self.memory_mb, self.timeout_s = memory_mb, timeout_s
        self.__pydantic_fields_set__ = explicit  # a lowered default stays a default (unset)
        self._limit_notes = [note for field, note in notes if field in explicit]
        return self

    @property
    def limit_notes(self) -> list[str]:
        return list(self._limit_notes)


class TaskFields(JobLimitFields):
    """A KernelBench-style task: the reference, the candidate, and how to make inputs."""

    reference: str = Field(
        description="The reference: Python source defining `class Model(nn.Module)`, `get_inputs()` and "
        "`get_init_inputs()` (KernelBench format), or the path of such a .py file (relative paths resolve against "
        "the server's working directory; for the CLI, the shell's)."
    )
    candidate: str = Field(
        description="The candidate: Python source defining `class ModelNew(nn.Module)` (same constructor "
        "as Model) whose forward launches Triton kernels, or the path of such a .py file (relative paths resolve "
        "against the server's working directory; for the CLI, the shell's)."
    )
    backend: Backend = "auto"
    dtype: Dtype = None
    value_range: tuple[float, float] | None = Field(
        default=None, description="[low, high]: refill floating inputs uniformly in this range (FillRandomData style)."
    )
    input_profile: Profile = "task"
    timeout_s: TimeoutSeconds = 120.0
    memory_mb: MemoryMegabytes = 4096

    @field_validator("value_range")
    @classmethod
    def _range_ordered(cls, value):
        if value is not None and not all(math.isfinite(v) for v in value):
            raise ValueError("value_range must be two finite numbers [low, high]")
        if value is not None and not value[0] < value[1]:
            raise ValueError("value_range must be [low, high] with low < high")
        return value


class SeedFields(Model):
    num_seeds: int = Field(default=3, ge=1, le=16, description="How many seeds (input sets); all must pass.")
    seeds: list[int] | None = Field(
        default=None,
        max_length=16,
        description="Pin these seeds (e.g. to reproduce a failure) instead of drawing fresh secret ones; "
        "on the command line a comma list (--seeds 1,2) or repeated flags.",
    )

    @field_validator("seeds")
    @classmethod
    def _seed_range(cls, value):
        if value is not None:
            if not value:
                raise ValueError("seeds, when given, must not be empty")
            if any(not 0 <= s <= MAX_SEED for s in value):
                raise ValueError(f"seeds must be between 0 and {MAX_SEED}")
        return value


class ErrorInfo(Model):
    """Where and why user code failed, in the user's own file and line."""

    phase: str = Field(description="e.g. syntax, import, forward (seed 3), first launch, compile add_kernel for sm_90.")
    type: str = Field(description="Exception type, or the signal / limit that ended the process.")
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    source_line: str | None = None
    traceback: list[str] = Field(default_factory=list, description="The user's own frames, innermost last.")
    hint: str | None = Field(default=None, description="What to do about it, when we know.")

    @property
    def where(self) -> str:
        """' at file:line' for summaries, or '' when the line is unknown."""
        return f" at {self.file}:{self.line}" if self.line else ""


#: The backends a client can be told about (sandbox.backends also has an internal offline compiler).
ReportedBackend = Literal["cpu", "cuda", "npu"]


class BackendInfo(Model):
    name: ReportedBackend
    device: str
    interpreter: bool
    golden_device: str | None = Field(
        default=None, description="Where the FP64 golden ran (the device when it has float64, else cpu)."
    )
    torch: str | None = None
    triton: str | None = None


class IsolationItem(Model):
    active: bool
    detail: str = ""


class Timings(Model):
    total_s: float
    golden_s: float = 0.0
    golden_cached: bool = False
    candidate_s: float = 0.0
    compare_s: float = 0.0
    queued_s: float = 0.0
    cpu_control_wait_s: float = Field(
        default=0.0, description="Waited for the CPU controls, which a first call computes beside the candidate's job."
    )


class TaskRequest(TaskFields):
    @model_validator(mode="after")
    def _sources_given(self):
        for name in ("reference", "candidate"):
            if not getattr(self, name).strip():
                raise ValueError(f"{name} is empty: pass Python source text or a path to a .py file")
        return self
