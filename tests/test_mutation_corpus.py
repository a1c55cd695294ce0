"""A fast subset of the mutation corpus (benchmarks/diagnosis_eval.py runs all of it): one planted bug
per operator, each diagnosed with the operator's pattern first and, where patchable, fixed by a
verified patch."""

from __future__ import annotations

import pytest

from tests.mutation_corpus.runner import metrics, plan, run_case

SUBSET = [
    ("vector_add", "drop_store_mask", 0),
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
