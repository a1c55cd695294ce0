"""A fast subset of the mutation corpus (benchmarks/diagnosis_eval.py runs all of it): one planted bug
per operator, each diagnosed with the operator's pattern first and, where patchable, fixed by a
verified patch."""

from __future__ import annotations

import pytest

from tests.mutation_corpus.runner import metrics, plan, run_case

SUBSET = [
    ("vector_add", "drop_store_mask", 0),
    ("vector_add", "drop_load_mask", 0),  # the lanes past the end are never stored: a latent read
    ("vector_add", "floor_grid", 0),
    ("vector_add", "in_place", 0),
    ("vector_add", "off_by_one", 0),
    ("vector_add", "drop_store", 0),
    ("row_softmax", "drop_load_mask", 0),
    ("row_softmax", "drop_max_subtraction", 0),
    ("rmsnorm", "eps_outside_sqrt", 0),
    ("rmsnorm", "drop_upcast", 0),
    ("layernorm", "one_pass_variance", 0),
    ("quantize_int8", "drop_rounding", 0),
    ("matmul_fp16", "fp16_accumulator", 0),
    ("attention", "swap_strides", 0),
    ("row_mean_var", "wrong_divisor", 0),
]


def _case(kernel: str, operator: str, site: int):
    return next(c for c in plan("cpu", [kernel], [operator]) if c.site == site)


@pytest.mark.parametrize("kernel,operator,site", SUBSET, ids=[f"{k}/{o}#{s}" for k, o, s in SUBSET])
def test_planted_bug_is_diagnosed_and_fixed(kernel, operator, site):
    outcome = run_case(_case(kernel, operator, site), "cpu")
    assert not outcome.equivalent, f"{outcome.case} passed ({outcome.verdict}): the mutant no longer exposes its bug"
    assert outcome.top1, (
        f"{outcome.case}: primary {outcome.primary} ({outcome.primary_tested}), expected one of {outcome.expected}"
    )
    if outcome.patchable:
        assert outcome.fix_verified, f"{outcome.case}: no verified fix ({outcome.verified_fixes})"


def test_subset_covers_every_operator_the_cpu_can_show():
    from tools.mutate.operators import OPERATORS

    shown = {op.id for op in OPERATORS.values() if not op.gpu_only} - {"rtz_cast"}  # rtz: equivalent under three_dim
    assert shown <= {o for _, o, _ in SUBSET}


def test_metrics_count_equivalent_mutants_apart():
    from tests.mutation_corpus.runner import Outcome

    outcomes = [
        Outcome(
            "a",
            "k",
            "floor_grid",
            "task",
            "fail",
            False,
            "boundary_mask_error",
            "proven",
            ["boundary_mask_error"],
            True,
            True,
            True,
            True,
            ["boundary_mask"],
        ),
        Outcome("b", "k", "floor_grid", "task", "pass", True, expected=["boundary_mask_error"], patchable=True),
        Outcome(
            "c",
            "k",
            "floor_grid",
            "task",
            "fail",
            False,
            "layout_mismatch",
            "untested",
            ["boundary_mask_error"],
            False,
            False,
            True,
            False,
        ),
    ]
    block = metrics(outcomes)["by_operator"]["floor_grid"]
    assert (block["mutants"], block["equivalent"], block["counted"], block["top1"]) == (3, 1, 2, 1)
    assert (block["patchable"], block["fix_verified"], block["fix_rate"]) == (2, 1, 0.5)


def test_verification_looks_past_the_first_fixes_when_none_passes():
    """attention/swap_strides#3 stores with swapped output strides: the proven unwritten output ranks
    other fixes first, which do not help; with max_fixes=1 the verification goes on down the line and
    returns the layout fix that makes the candidate pass."""
    from tests.helpers import without_experiments
    from tests.mutation_corpus.runner import SEEDS, _request
    from tools.accuracy import run_accuracy
    from tools.diagnosis import explain_failure
    from tools.fixes import suggest_fix
    from tools.models.diagnosis import ExplainRequest, FixRequest

    (case,) = [c for c in plan("cpu", ["attention"], ["swap_strides"]) if c.site == 3]
    run = run_accuracy(_request(case.kernel, case.source, case.exposures[0], "cpu", len(SEEDS)))
    assert run.verdict == "fail"
    # explained without the access trace, the store trace and the repair search, which name the stride first: this
    # tests the line of fixes a diagnosis without them gives
    with without_experiments("access_trace", "store_collisions", "repair_search"):  # suggest_fix too, if it explains
        explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
        unverified = suggest_fix(FixRequest(run_id=run.run_id, max_fixes=1, verify=False))
        assert [f.fix for f in unverified.fixes] != ["fix_layout"]  # not first in the diagnoses' order
        fixed = suggest_fix(FixRequest(run_id=run.run_id, max_fixes=1, verify=True, search=False))
    assert [(f.fix, f.verified) for f in fixed.fixes] == [("fix_layout", True)], fixed.summary
