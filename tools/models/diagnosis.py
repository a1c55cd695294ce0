"""explain_failure and suggest_fix: requests and results."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from tools.models.common import Model, Number
from tools.models.task import Timings

#: Stable failure-pattern ids, plus ids for runs that never produced numbers.
PatternId = Literal[
    "large_k_accumulation_drift",
    "low_precision_accumulation",
    "reduced_precision_dot",
    "small_value_outliers",
    "cancellation_error",
    "nan_mismatch",
    "inf_overflow",
    "rounding_mode_bias",
    "unwritten_output",
    "boundary_mask_error",
    "all_zero_output",
    "layout_mismatch",
    "nondeterminism",
    "input_mutation",
    "no_kernel_launched",
    "shape_mismatch",
    "dtype_mismatch",
    "formula_error",
    "threshold_too_strict",
    "compile_error",
    "runtime_error",
    "timeout",
    "crash",
    "unsupported",
]

#: Stable fix ids.
FixId = Literal[
    "fp32_accumulator",
    "kahan_summation",
    "ieee_dot_precision",
    "stable_formula",
    "nan_propagation",
    "max_subtraction",
    "cast_round_mode_rint",
    "boundary_mask",
    "initialize_output",
    "fix_layout",
    "output_dtype",
    "deterministic_reduction",
    "do_not_mutate_inputs",
    "use_kernel",
    "fix_formula",
    "relax_threshold",
    "fix_error",
]

#: How a diagnosis stands: proven by the run itself (poison that survived, a written guard margin,
#: an exact transform of the golden, the integer outputs' bits), confirmed or refuted by an
#: experiment, or untested (inferred from statistics and the source).
Tested = Literal["proven", "confirmed", "refuted", "untested"]


class ExplainRequest(Model):
    """Explain a stored run: which failure pattern, with numeric evidence, a precision fingerprint and a heatmap."""

    run_id: str = Field(description="The run_id a run_accuracy call returned.")
    experiments: bool = Field(
        default=True,
        description="Test the hypotheses by experiment: precision fingerprints against emulated goldens (no "
        "sandbox), and re-runs of reference and candidate in the sandbox on inputs changed under control (scaled by "
        "powers of two, shifted, with finite instead of NaN guard margins), only where the answer can change.",
    )
    experiment_budget_s: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="Wall-clock budget for the sandbox re-runs of the experiments; "
        "experiments that do not fit are reported as not run.",
    )
    heatmap: bool | None = Field(
        default=None,
        description="Render the error heatmap (PNG, returned as an image and kept with the run); default: only "
        "where it is readable (matplotlib installed: axes and a colour scale). The text map (error_map) comes "
        "either way.",
    )
    search: bool = Field(
        default=True,
        description="Once a logic error is shown, search single-site edits of the candidate (located lines first, "
        "a few seconds of the budget) for the one that makes it pass: its line is where the bug is. A found edit "
        "settles the diagnosis (later experiments do not run); suggest_fix verifies it on every seed.",
    )


class Location(Model):
    description: str
    file: str | None = Field(default=None, description="The candidate file the line is in.")
    line: int | None = Field(default=None, description="The candidate's source line that is wrong (1-based).")
    code: str | None = Field(default=None, description="That line's text.")
    tensor: str | None = Field(default=None, description="The tensor it reads or writes wrongly, e.g. 'input 1'.")
    access: str | None = Field(
        default=None, description="What it accesses against what the reference needs, for one wrong element."
    )
    indices: list[list[int]] = Field(default_factory=list, description="A few element indices that show it.")
    rows: list[int] | None = Field(
        default=None, description="[first, last] row of the region (2-D view of the output)."
    )
    cols: list[int] | None = Field(default=None, description="[first, last] column of the region.")
    tile: list[int] | None = Field(default=None, description="Block size the region lines up with, when it does.")

    @classmethod
    def at_line(cls, file: str, line: int, source: str, what: str = "", **fields) -> Location:
        """One line of the candidate `source` (named `file`), with that line's text."""
        lines = source.splitlines()
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return cls(description=f"{file}:{line}: {what or code}", file=file, line=line, code=code, **fields)


#: A diagnosis's evidence: named facts, each a number, text, flag or list.
Evidence = dict[str, Number | str | bool | list | None]


class Diagnosis(Model):
    pattern: PatternId
    confidence: float = Field(ge=0, le=1)
    summary: str = Field(description="One sentence for the agent: what is wrong.")
    evidence: Evidence = Field(default_factory=dict)
    location: Location | None = None
    seed: int | None = None
    output: str | None = Field(default=None, description="Which output, for multi-output ops.")
    suggested_fixes: list[FixId] = Field(default_factory=list)
    tested: Tested = Field(
        default="untested",
        description="proven by the run itself, confirmed / refuted by an experiment "
        "(see `experiments`), or untested (inferred).",
    )
    experiment: str | None = Field(
        default=None, description="What the experiment that decided it measured, in one line."
    )


class TrialSummary(Model):
    """One sandboxed re-run of an experiment."""

    label: str = Field(description="What was changed, e.g. 'inputs x 2^-6'.")
    ran: bool
    passed: bool | None = None
    mere: Number | None = None
    mare: Number | None = None
    cpu_mere: Number | None = None
    nonfinite: int | None = Field(default=None, description="NaN/Inf outputs where the golden is finite.")
    note: str | None = None


class ExperimentOutcome(Model):
    id: str
    question: str
    trials: list[TrialSummary] = Field(default_factory=list)
    finding: str = Field(description="What the trials showed, in one line.")
    confirms: list[PatternId] = Field(default_factory=list)
    refutes: list[PatternId] = Field(default_factory=list)
    edits_tried: int | None = Field(
        default=None,
        description="repair_search: how many of the planned edits it re-ran (suggest_fix's search goes on from there).",
    )
    ran: bool = Field(
        default=True,
        description="False: the experiment did not run to its end (the budget was spent, the call was cancelled, or "
        "it failed); `finding` says which. A later call runs it again.",
    )
    rounding_shown: bool = Field(
        default=False,
        description="exact_inputs: with exact arithmetic the output passes and its error fell: the failure comes "
        "from rounding or range, not from the logic.",
    )


class PrecisionModel(Model):
    """How close the candidate is to a golden emulating one precision model (lower = closer)."""

    model: str
    mere_vs_candidate: Number = Field(description="MERE of the candidate against this emulation.")
    note: str = ""

    def describe(self) -> str:
        """'fp32 accumulation: MERE 0.0025' (inf: no element is finite in both)."""
        mere = float(self.mere_vs_candidate)
        value = (
            "MERE 0 (identical)"
            if mere == 0
            else "no element finite in both"
            if mere == float("inf")
            else f"MERE {mere:.2g}"
        )
        return f"{self.model}: {value}" + (f" ({self.note})" if self.note else "")


class ExplainResult(Model):
    run_id: str
    verdict: str
    summary: str = Field(description="The primary diagnosis in one line.")
    diagnoses: list[Diagnosis] = Field(description="Ranked, most likely first.")
    fingerprint: list[PrecisionModel] = Field(
        default_factory=list, description="Matmul-like ops: the candidate against emulated goldens, closest first."
    )
    experiments: list[ExperimentOutcome] = Field(
        default_factory=list, description="The experiments run and what they showed."
    )
    compute_num: int | None = Field(default=None, description="Reduction length used (given, or inferred).")
    heatmap: str | None = Field(default=None, description="Resource URI of the error heatmap PNG.")
    error_map: str | None = Field(
        default=None,
        description="Where the errors are, as text (the failing output, first seed): a header with the shape and "
        "what a cell spans, then one character a cell: '.' < 1e-3 <= '+' < 1e-1 <= '#' (relative error), 'N' a NaN "
        "mismatch, 'u' never written.",
    )
    timings: Timings
    next_step: str
    cached: bool = Field(
        default=False,
        description="True when this is the explanation an earlier call with the same options made for this run "
        "(experiments are not run again: the call is idempotent).",
    )

    def decisive_experiments(self) -> list[ExperimentOutcome]:
        """For the text views: the experiments that confirmed or refuted a pattern; all of them when none did
        (then what was tried is the news). The JSON keeps every one."""
        decisive = [o for o in self.experiments if o.confirms or o.refutes]
        return decisive or list(self.experiments)

    def fingerprint_tells(self) -> bool:
        """Whether the precision fingerprint tells the emulations apart (the closest at least 2x closer than the
        farthest shown); emulations that all sit at the same distance say nothing about precision."""
        meres = sorted(float(p.mere_vs_candidate) for p in self.fingerprint[:3])
        finite = [m for m in meres if math.isfinite(m)]
        if len(finite) < 2:
            return bool(finite) and len(meres) > len(finite)
        return finite[-1] > 2 * finite[0]


class FixRequest(Model):
    """Suggest fixes for a stored run as patches to the candidate; with verify, re-run each patched candidate."""

    run_id: str = Field(description="The run_id a run_accuracy call returned.")
    verify: bool = Field(
        default=False,
        description="Apply each patch and re-run run_accuracy in the sandbox; a fix is called verified only when the "
        "patched candidate passes.",
    )
    max_fixes: int = Field(default=3, ge=1, le=10, description="Return at most this many fixes, best first.")
    search: bool = Field(
        default=True,
        description="With verify, when no fix verifies: search single-site edits of the candidate (index and "
        "stride swaps, // and %, bounds +-1, padding kept out of reductions, ...; located lines first), re-run "
        "side by side, and return the first that passes on every seed, verified.",
    )
    search_budget_s: float | None = Field(
        default=None,
        gt=0,
        le=600,
        description="Wall-clock budget of the repair search, counted from the call's start (the fixes verified "
        "before the search take their share of it, down to a quarter left for the search); default: 60 s on cpu, "
        "20 s on cuda.",
    )


#: Verification metrics that count elements (shown as integers, and only when not both zero).
COUNTS = ("nan_mismatches", "out_of_bounds_reads")


class Verification(Model):
    verdict: str
    summary: str
    run_id: str
    before: dict[str, Number | None] = Field(
        default_factory=dict,
        description="mere / mare of the failing run's worst output, nan_mismatches (elements NaN in one of it and "
        "the golden only), out_of_bounds_reads (elements its loads read outside the tensors, where the backend "
        "records it).",
    )
    after: dict[str, Number | None] = Field(default_factory=dict, description="The same of the patched run.")

    def describe(self) -> str:
        """'MERE 0.12 -> 3.1e-08, MARE 1 -> 6e-08 (pass)': the metrics before and after the patch."""

        def num(value, count: bool = False) -> str:
            try:
                return f"{int(float(value))}" if count else f"{float(value):.3g}"
            except (TypeError, ValueError, OverflowError):
                return "?"

        def shown(name: str) -> bool:
            before, after = self.before.get(name), self.after.get(name)
            if name in COUNTS:  # only when one of the runs has some
                return bool(before or after)
            return before is not None or after is not None

        labels = {
            "mere": "MERE",
            "mare": "MARE",
            "nan_mismatches": "NaN mismatches",
            "out_of_bounds_reads": "elements read out of bounds",
        }
        parts = [
            f"{label} {num(self.before.get(name), name in COUNTS)} -> {num(self.after.get(name), name in COUNTS)}"
            for name, label in labels.items()
            if shown(name)
        ]
        return (", ".join(parts) + f" ({self.verdict})") if parts else self.verdict


class FixSuggestion(Model):
    fix: FixId
    title: str
    why: str = Field(description="Tied to the evidence of the diagnosis it answers.")
    for_pattern: PatternId
    guidance: dict[str, str] = Field(description="What to do, per DSL: triton, triton_ascend, ascendc.")
    patch: str | None = Field(
        default=None, description="Unified diff against the candidate source, when the pattern was located in it."
    )
    patched_source: str | None = Field(default=None, description="The candidate with the patch applied.")
    verified: bool | None = Field(default=None, description="True only when the patched candidate passed run_accuracy.")
    verification: Verification | None = None
    location: Location | None = Field(default=None, description="The line the patch changes, when it is one line.")


class FixResult(Model):
    run_id: str
    verdict: str
    summary: str
    fixes: list[FixSuggestion]
    timings: Timings
    next_step: str
