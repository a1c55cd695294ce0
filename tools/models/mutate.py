"""kernel-eval mutate: how strong is a task's accuracy test against planted bugs."""

from __future__ import annotations

from pydantic import Field, field_validator

from tools.models.common import Model
from tools.models.task import SeedFields, TaskFields


class MutateRequest(SeedFields, TaskFields):
    """Plant known bugs in a correct candidate (mutation operators) and run each mutant through
    run_accuracy with the task's inputs, seeds and profile: which does the test catch?"""

    operators: list[str] | None = Field(
        default=None,
        description="Operator ids to apply (default: every operator), as a list or "
        "a comma list (drop_load_mask,floor_grid); `kernel-eval mutate --list-operators` names them.",
    )

    @field_validator("operators", mode="before")
    @classmethod
    def _comma_lists(cls, value):
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            value = [part.strip() for item in value for part in str(item).split(",") if part.strip()]
            if not value:
                raise ValueError("operators, when given, must name at least one operator")
        return value

    max_mutants: int = Field(default=40, ge=1, le=500, description="Stop after this many mutants (in operator order).")
    probe_exposures: bool = Field(
        default=True,
        description="Re-run each survivor under the inputs that expose its operator "
        "(e.g. input_profile=large_magnitude), to tell a weak test from an equivalent mutant.",
    )


class MutantResult(Model):
    operator: str
    description: str
    site: int = Field(description="Which site of the operator's construct (0-based) the mutant changes.")
    verdict: str = Field(description="run_accuracy's verdict for the mutant under the task's inputs.")
    caught: bool = Field(
        description="The test rejects the mutant (any verdict but pass), or its loads read past its tensors (recorded "
        "on the cpu interpreter even when the values pass)."
    )
    summary: str
    run_id: str
    caught_with: str | None = Field(
        default=None, description="For a survivor: the inputs under which it is caught, if any."
    )
    error_ratio: float | None = Field(
        default=None,
        description="For a survivor: its worst MARE over the original's (same inputs); "
        ">= 2 means a real bug the thresholds let through.",
    )
    new_warnings: list[str] = Field(
        default_factory=list,
        description="For a survivor: warnings the original's run did not have "
        "(e.g. a one-sided error bias): the latent defect it plants.",
    )
    same_output: bool | None = Field(
        default=None,
        description="For a survivor: its first seed's output is bitwise the original's (None: not compared, e.g. "
        "store_tensors off). True is what an equivalent mutant looks like.",
    )
    gpu_compile_error: str | None = Field(
        default=None,
        description="For a survivor on the cpu backend: why Triton's compiler for sm_90 rejects the mutant (the "
        "interpreter ran it). Such a mutant is no kernel a GPU would run: not counted in the score.",
    )
    diff: str = Field(description="The planted change, as a unified diff.")


class MutateResult(Model):
    summary: str
    mutants: list[MutantResult]
    caught: int
    survived: int
    mutation_score: float = Field(description="caught / mutants (those that do not compile for a GPU left out).")
    by_operator: dict[str, list[int]] = Field(description="operator -> [caught, mutants].")
    advice: list[str] = Field(default_factory=list, description="How to make the test stronger, from the survivors.")
