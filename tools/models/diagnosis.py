"""explain_failure and suggest_fix: requests and results."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.models.common import Model, Number
from tools.models.task import Timings

#: Stable failure-pattern ids, plus ids for runs that never produced numbers.
PatternId = Literal[
    "large_k_accumulation_drift", "low_precision_accumulation", "reduced_precision_dot", "small_value_outliers",
    "cancellation_error", "nan_mismatch", "inf_overflow", "rounding_mode_bias", "unwritten_output",
    "boundary_mask_error", "all_zero_output", "layout_mismatch", "nondeterminism", "input_mutation",
    "no_kernel_launched", "shape_mismatch", "dtype_mismatch",
    "threshold_too_strict", "compile_error", "runtime_error", "timeout", "crash", "unsupported",
]

#: Stable fix ids.
FixId = Literal[
    "fp32_accumulator", "kahan_summation", "ieee_dot_precision", "stable_formula", "nan_propagation",
    "max_subtraction", "cast_round_mode_rint", "boundary_mask", "initialize_output", "fix_layout",
    "deterministic_reduction", "do_not_mutate_inputs", "use_kernel",
    "relax_threshold", "fix_error",
]


class ExplainRequest(Model):
    """Explain a stored run: which failure pattern, with numeric evidence, a precision fingerprint and a heatmap."""

    run_id: str = Field(description="The run_id a run_accuracy call returned.")
    experiments: bool = Field(
        True, description="Run controlled experiments where they confirm a hypothesis (precision fingerprints "
        "against emulated goldens, which need no sandbox; re-runs use the sandbox)."
    )
    heatmap: bool = Field(True, description="Render the error heatmap (PNG, returned as an image and kept with the run).")


class Location(Model):
    description: str
    indices: list[list[int]] = Field(default_factory=list, description="A few element indices that show it.")
    rows: list[int] | None = Field(None, description="[first, last] row of the region (2-D view of the output).")
    cols: list[int] | None = Field(None, description="[first, last] column of the region.")
    tile: list[int] | None = Field(None, description="Block size the region lines up with, when it does.")


class Diagnosis(Model):
    pattern: PatternId
    confidence: float = Field(ge=0, le=1)
    summary: str = Field(description="One sentence for the agent: what is wrong.")
    evidence: dict[str, Number | str | bool | list | None] = Field(default_factory=dict)
    location: Location | None = None
    seed: int | None = None
    output: str | None = Field(None, description="Which output, for multi-output ops.")
    suggested_fixes: list[FixId] = Field(default_factory=list)


class PrecisionModel(Model):
    """How close the candidate is to a golden emulating one precision model (lower = closer)."""

    model: str
    mere_vs_candidate: Number = Field(description="MERE of the candidate against this emulation.")
    note: str = ""


class ExplainResult(Model):
    run_id: str
    verdict: str
    summary: str = Field(description="The primary diagnosis in one line.")
    diagnoses: list[Diagnosis] = Field(description="Ranked, most likely first.")
    fingerprint: list[PrecisionModel] = Field(default_factory=list, description="Matmul-like ops: the candidate against emulated goldens, closest first.")
    compute_num: int | None = Field(None, description="Reduction length used (given, or inferred).")
    heatmap: str | None = Field(None, description="Resource URI of the error heatmap PNG.")
    timings: Timings
    next_step: str


class FixRequest(Model):
    """Suggest fixes for a stored run as patches to the candidate; with verify, re-run each patched candidate."""

    run_id: str = Field(description="The run_id a run_accuracy call returned.")
    verify: bool = Field(False, description="Apply each patch and re-run run_accuracy in the sandbox; a fix is called verified only when the patched candidate passes.")
    max_fixes: int = Field(3, ge=1, le=10, description="Return at most this many fixes, best first.")


class Verification(Model):
    verdict: str
    summary: str
    run_id: str
    before: dict[str, Number | None] = Field(default_factory=dict, description="mere / mare of the failing run.")
    after: dict[str, Number | None] = Field(default_factory=dict, description="mere / mare of the patched run.")


class FixSuggestion(Model):
    fix: FixId
    title: str
    why: str = Field(description="Tied to the evidence of the diagnosis it answers.")
    for_pattern: PatternId
    guidance: dict[str, str] = Field(description="What to do, per DSL: triton, triton_ascend, ascendc.")
    patch: str | None = Field(None, description="Unified diff against the candidate source, when the pattern was located in it.")
    patched_source: str | None = Field(None, description="The candidate with the patch applied.")
    verified: bool | None = Field(None, description="True only when the patched candidate passed run_accuracy.")
    verification: Verification | None = None


class FixResult(Model):
    run_id: str
    verdict: str
    summary: str
    fixes: list[FixSuggestion]
    timings: Timings
    next_step: str
