"""The stored_value experiment's parts: the relation fitted to the kernel's locals at the store, and how it is
written into the candidate (tools/diagnosis/stored_value.py). The experiment end to end, on real kernels, is in
tests/test_where.py."""

from __future__ import annotations

import pytest
import torch

from tools import thresholds as T
from tools.diagnosis import stored_value
from tools.diagnosis.traced import TracedSample
from tools.repair import formulas

FP32 = torch.finfo(torch.float32).eps


def _samples(locals_: dict[str, torch.Tensor], wrong: list[bool] | None = None, line: int = 9) -> list[TracedSample]:
    count = len(next(iter(locals_.values())))
    wrong = wrong if wrong is not None else [True] * count
    return [
        TracedSample(
            n,
            0,
            n,
            wrong[n],
            {},
            {"store_line": line, "at_store": {name: float(v[n]) for name, v in locals_.items()}},
            {},
        )
        for n in range(count)
    ]


def _locals(count: int = 12) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return {name: torch.randn(count, generator=generator) + 3 for name in ("x", "h", "s", "ms")}


def test_a_dropped_term_is_the_error_as_a_constant_times_a_local():
    values = _locals()
    actual = values["s"] * values["h"]
    golden = actual + 2 * values["x"]
    found = stored_value.relation(_samples(values | {"out": actual}), actual, golden, FP32)
    assert found is not None
    relation, line = found
    assert (relation.kind, relation.name, relation.power, line) == ("term", "x", 1.0, 9)
    assert relation.c == pytest.approx(2.0) and relation.describe() == "golden - actual = 2 * `x`"


@pytest.mark.parametrize(("power", "said"), [(0.5, "golden = actual * sqrt(`ms`)"), (-1.0, "golden = actual / `ms`")])
def test_a_dropped_factor_is_the_golden_as_the_actual_times_a_power_of_a_local(power, said):
    values = _locals()
    actual = values["x"] / values["ms"]
    golden = actual * values["ms"].pow(power)
    relation, _ = stored_value.relation(_samples(values), actual, golden, FP32) or (None, 0)
    assert relation is not None and (relation.kind, relation.name, relation.power) == ("factor", "ms", power)
    assert relation.describe() == said


def test_another_local_holding_the_golden_is_the_wrong_variable_stored():
    values = _locals()
    relation, _ = stored_value.relation(_samples(values), values["x"], values["h"].clone(), FP32) or (None, 0)
    assert relation is not None and (relation.kind, relation.name) == ("instead", "h")


def test_no_relation_is_claimed_where_none_holds_or_it_would_say_nothing():
    values = _locals()
    actual = values["x"]
    # noise no local explains
    noise = torch.randn(12, generator=torch.Generator().manual_seed(5))
    assert stored_value.relation(_samples(values), actual, actual + noise, FP32) is None
    # a constant factor: no local varies with it (the detectors name a scale)
    assert stored_value.relation(_samples(values), actual, 3 * actual, FP32) is None
    # too few wrong elements to tell a relation from a coincidence
    few = [True] * (T.STORED_VALUE_MIN_WRONG - 1) + [False] * (12 - T.STORED_VALUE_MIN_WRONG + 1)
    golden = actual + values["h"]
    assert stored_value.relation(_samples(values, wrong=few), actual, golden, FP32) is None
    assert stored_value.relation(_samples(values), actual, golden, FP32) is not None


@pytest.mark.parametrize(("offset", "said"), [(-3.0, "golden - actual = -3"), (0.5, "golden - actual = 0.5")])
def test_a_dropped_constant_term_is_the_simplest_relation(offset, said):
    """`m4 / m2^2` stored for the excess kurtosis `m4 / m2^2 - 3`: the error is one constant on every element."""
    values = _locals()
    actual = values["x"] * values["h"]
    relation, line = stored_value.relation(_samples(values), actual, actual + offset, FP32) or (None, 0)
    assert relation is not None and (relation.kind, line) == ("offset", 9), relation
    assert relation.c == pytest.approx(offset) and relation.describe() == said
    # a constant stored where the golden varies is no offset (the local that holds the answer is)
    constant = torch.full((12,), 2.0)
    relation, _ = stored_value.relation(_samples(values), constant, values["h"].clone(), FP32) or (None, 0)
    assert relation is not None and relation.kind == "instead"


KERNEL = """import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(x_ptr + offs + n)
    out = x - y
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty))
"""


def _relation(kind: str, name: str = "y", power: float = 1.0, c: float = 1.0) -> stored_value.Relation:
    return stored_value.Relation(kind, name, power, c)


@pytest.mark.parametrize(
    ("relation", "at_assignment", "at_store"),
    [
        (_relation("term"), "x - y + y", "(out + y)"),
        (_relation("term", c=-1.0), "x - y - y", "(out - y)"),
        (_relation("term", c=2.0), "x - y + 2 * y", "(out + 2 * y)"),
        (_relation("term", c=0.5), "x - y + 0.5 * y", "(out + 0.5 * y)"),
        (_relation("term", c=1 / 3), "x - y + 1 / 3 * y", "(out + 1 / 3 * y)"),
        (_relation("term", power=2.0, c=-1.0), "x - y - (y * y)", "(out - (y * y))"),
        (_relation("factor"), "(x - y) * y", "(out * y)"),
        (_relation("factor", power=-0.5), "(x - y) / tl.sqrt(y)", "(out / tl.sqrt(y))"),
        (_relation("factor", power=2.0, c=3.0), "3 * ((x - y) * y * y)", "(3 * out * y * y)"),
        (_relation("offset", name="", power=0.0, c=-3.0), "x - y - 3", "(out - 3)"),
        (_relation("offset", name="", power=0.0, c=0.5), "x - y + 0.5", "(out + 0.5)"),
    ],
)
def test_the_relation_is_written_at_the_assignment_of_the_stored_variable_then_at_the_store(
    relation, at_assignment, at_store
):
    made = stored_value.edits(KERNEL, 10, relation)
    assert [(e.line, e.before, e.after) for e in made] == [(9, "x - y", at_assignment), (10, "out", at_store)]
    assert all(e.fix == "fix_formula" and e.operator == stored_value.OPERATOR for e in made)
    assert f"    out = {at_assignment}\n" in made[0].source
    assert f"tl.store(out_ptr + offs, {at_store}.to(out_ptr.dtype.element_ty))" in made[1].source  # cast last
    for edit in made:
        compile(edit.source, "k.py", "exec")


def test_a_local_reassigned_after_the_stored_variable_is_written_only_at_the_store():
    source = KERNEL.replace("    out = x - y\n", "    out = x - y\n    y = y * 2\n")
    made = stored_value.edits(source, 11, _relation("term"))
    assert [(e.line, e.before, e.after) for e in made] == [(11, "out", "(out + y)")]


def test_the_wrong_variable_stored_is_replaced_at_the_store():
    made = stored_value.edits(KERNEL, 10, _relation("instead", name="x"))
    assert [(e.line, e.before, e.after) for e in made] == [(10, "out", "x")]
    assert "tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty))" in made[0].source


def test_no_edit_where_the_line_has_no_store_or_the_source_does_not_parse():
    assert stored_value.edits(KERNEL, 9, _relation("term")) == []
    assert stored_value.edits("def (:", 1, _relation("term")) == []


def test_the_fix_registry_writes_the_relation_in_again_from_the_evidence():
    edit = stored_value.edits(KERNEL, 10, _relation("term"))[0]
    evidence = {"edit_operator": stored_value.OPERATOR, "line": 9, "edit_before": edit.before, "edit_after": edit.after}
    assert formulas.from_evidence(KERNEL, evidence) == edit.source
    assert formulas.from_evidence(KERNEL, evidence | {"line": 8}) is None  # not on that line
    assert formulas.from_evidence(KERNEL, evidence | {"edit_operator": "name_swap"}) is None
