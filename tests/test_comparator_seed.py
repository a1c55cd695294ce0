"""The specification's own requirements (docs/comparator.md): the boundary cases and every threshold row."""

from __future__ import annotations

import pytest
import torch

from tools import thresholds as T
from tools.compare import CompareOptions, compare_tensors

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "hifloat32", "float8_e4m3fn", "float8_e5m2"]


def judge(actual, golden, cpu=None, dtype="float32", **options):
    return compare_tensors(actual, golden, cpu, dtype=dtype, options=CompareOptions(**options))


def storage(dtype_name):
    return T.STORAGE_DTYPES[dtype_name]


def background(dtype_name, n=1000, seed=0):
    """A correct output: golden in [0.5, 2), candidate = CPU = golden rounded to the dtype."""
    gen = torch.Generator().manual_seed(seed)
    golden = 0.5 + 1.5 * torch.rand(n, generator=gen, dtype=torch.float64)
    rounded = golden.to(storage(dtype_name))
    return rounded.clone(), golden, rounded.clone()


# --- boundary cases ----------------------------------------------------------------------------
# Scenario values per dtype: (cancellation golden, small golden, small-value error), chosen inside
# the dtype's domains. The spec's examples are the float32 row.
SCENARIOS = {
    "float32": (1e-3, 1e-5, 1e-8),
    "float16": (1e-2, 1e-4, 5e-5),
    "bfloat16": (5e-2, 1e-3, 2e-4),
}
K = 8  # positions per scenario: the ratio rule tolerates up to 2 errors where the CPU has none


def plant(dtype_name, npu_value, cpu_value, golden_value, k=K):
    actual, golden, cpu = background(dtype_name)
    dt = storage(dtype_name)
    actual[:k] = torch.tensor(npu_value, dtype=torch.float64).to(dt)
    cpu[:k] = torch.tensor(cpu_value, dtype=torch.float64).to(dt)
    golden[:k] = golden_value
    return judge(actual, golden, cpu, dtype=dtype_name)


@pytest.mark.parametrize("dtype_name", SCENARIOS)
def test_92_cancellation_npu_and_cpu_both_zero_passes(dtype_name):
    cancel_golden = SCENARIOS[dtype_name][0]
    r = plant(dtype_name, 0.0, 0.0, cancel_golden)
    assert r.passed, r.summary
    assert r.cancel_total_count == K and r.cancel_error_count == K and r.cancel_cpu_error_count == K
    assert r.dimensions.normal_range and r.mare < r.mare_threshold  # cancel positions left out


@pytest.mark.parametrize("dtype_name", SCENARIOS)
def test_92_cancellation_npu_zero_cpu_right_fails(dtype_name):
    cancel_golden = SCENARIOS[dtype_name][0]
    r = plant(dtype_name, 0.0, cancel_golden, cancel_golden)
    assert not r.passed
    assert r.dimensions.cancellation is False
    assert r.cancel_error_count == K and r.cancel_cpu_error_count == 0
    assert "cancellation" in r.summary


@pytest.mark.parametrize("dtype_name", SCENARIOS)
def test_92_small_value_same_error_passes(dtype_name):
    _, small_golden, err = SCENARIOS[dtype_name]
    r = plant(dtype_name, small_golden + 2 * err, small_golden + 2 * err, small_golden)
    assert r.passed, r.summary
    assert r.small_value_error_count == K == r.small_value_cpu_error_count


@pytest.mark.parametrize("dtype_name", SCENARIOS)
def test_92_small_value_npu_error_cpu_none_fails(dtype_name):
    _, small_golden, err = SCENARIOS[dtype_name]
    r = plant(dtype_name, small_golden + 2 * err, small_golden, small_golden)
    assert not r.passed
    assert r.dimensions.small_value is False
    assert r.small_value_error_count == K and r.small_value_cpu_error_count == 0


@pytest.mark.parametrize("dtype_name", SCENARIOS)
def test_92_large_value_zero_output_fails_not_cancellation(dtype_name):
    actual, golden, cpu = background(dtype_name)
    actual[0] = 0.0
    golden[0] = 0.1 if dtype_name != "bfloat16" else 0.2  # above every cancel boundary
    cpu[0] = golden[0].to(storage(dtype_name))
    r = judge(actual, golden, cpu, dtype=dtype_name)
    assert not r.passed
    assert r.dimensions.normal_range is False
    assert r.cancel_total_count == 0
    assert r.worst[0].index == [0] and r.worst[0].domain == "normal"


def test_ratio_rule_tolerates_two_errors_where_cpu_has_none_and_warns():
    """By the spec's formula, npu / max(cpu, 1) <= 2: one or two such errors pass."""
    for k, expect in ((1, True), (2, True), (3, False)):
        r = plant("float32", 0.0, 1e-3, 1e-3, k=k)
        assert r.passed is expect, (k, r.summary)
    r = plant("float32", 0.0, 1e-3, 1e-3, k=2)
    assert any("tolerated by the ratio rule" in w for w in r.warnings)


# --- threshold rows -----------------------------------------------------------------------------


def with_relative_error(dtype_name, rel, n=256):
    """actual = 1.0 exactly; golden chosen so |actual - golden| / |golden| == rel."""
    actual = torch.ones(n, dtype=storage(dtype_name))
    golden = torch.full((n,), 1.0 / (1.0 + rel), dtype=torch.float64)
    return actual, golden


@pytest.mark.parametrize("dtype_name", FLOAT_DTYPES)
def test_mere_threshold_row(dtype_name):
    thr = T.THREE_DIM[dtype_name].precision
    below = judge(*with_relative_error(dtype_name, 0.98 * thr), dtype=dtype_name)
    above = judge(*with_relative_error(dtype_name, 1.02 * thr), dtype=dtype_name)
    assert below.threshold == thr and below.passed, below.summary
    assert not above.passed and above.dimensions.normal_range is False
    assert above.mere == pytest.approx(1.02 * thr, rel=1e-3)


@pytest.mark.parametrize("dtype_name", FLOAT_DTYPES)
def test_mare_threshold_is_exactly_ten_times(dtype_name):
    thr = T.THREE_DIM[dtype_name].precision
    assert T.THREE_DIM[dtype_name].mare == 10 * thr
    for factor, expect in ((9.5, True), (10.5, False)):  # a power-of-two MARE (8x or 16x) fails one
        actual = torch.ones(4096, dtype=storage(dtype_name))
        golden = torch.ones(4096, dtype=torch.float64)
        golden[7] = 1.0 / (1.0 + factor * thr)
        r = judge(actual, golden, dtype=dtype_name)
        assert r.passed is expect, (factor, r.summary)
        assert r.mare == pytest.approx(factor * thr, rel=1e-3)


@pytest.mark.parametrize("dtype_name", FLOAT_DTYPES)
def test_small_value_threshold_and_error_rows(dtype_name):
    row = T.THREE_DIM[dtype_name]
    dt = storage(dtype_name)
    a_in = torch.tensor([0.9 * row.small_value], dtype=torch.float64).to(dt)  # representable
    a = a_in.to(torch.float64)
    cases = [
        (a - 2 * row.small_value_error, 1),  # in the small domain, error above the bound
        (a - 0.5 * row.small_value_error, 0),  # in the small domain, error below the bound
    ]
    for golden, errors in cases:
        assert golden.abs().item() < row.small_value
        r = judge(a_in.clone(), golden, a_in.clone(), dtype=dtype_name)
        assert r.small_value_total_count == 1
        assert r.small_value_error_count == errors
    # just above the small-value threshold the element is judged by another rule
    big = torch.tensor([1.1 * row.small_value], dtype=torch.float64).to(dt)
    r = judge(big.clone(), big.to(torch.float64), dtype=dtype_name)
    assert r.small_value_total_count == 0


@pytest.mark.parametrize("dtype_name", FLOAT_DTYPES)
def test_cancellation_condition_needs_all_four_parts(dtype_name):
    row = T.THREE_DIM[dtype_name]
    dt = storage(dtype_name)
    inside = (row.small_value * row.cancel_boundary) ** 0.5  # between small and boundary

    def count(output, golden):
        a = torch.tensor([output], dtype=torch.float64).to(dt)
        return judge(a, torch.tensor([golden], dtype=torch.float64), a.clone(), dtype=dtype_name).cancel_total_count

    assert count(0.0, inside) == 1  # all four hold
    assert count(0.0, 1.01 * row.cancel_boundary) == 0  # golden not near the boundary
    assert count(0.0, 0.99 * row.small_value) == 0  # golden in the small-value domain
    near_zero_limit = torch.tensor([row.cancel_zero], dtype=torch.float64).to(dt).item()
    assert count(near_zero_limit, inside) == 0  # output not cancelled to ~0
    assert count(float("nan"), inside) == 0  # not a valid value


def test_cancellation_positions_are_read_per_output():
    """The CPU control's cancellation positions use the CPU's output, not the candidate's."""
    golden = torch.tensor([1e-3] * 4 + [1.0] * 100, dtype=torch.float64)
    actual = golden.float()
    cpu = golden.float()
    cpu[:4] = 0.0
    r = judge(actual, golden, cpu)
    # 1e-3 is itself below cancel_zero (2**-8): a cancellation position, but without error
    assert r.cancel_total_count == 4 and r.cancel_error_count == 0
    assert r.cancel_cpu_error_count == 4 and r.passed


def test_custom_threshold_replaces_mere_threshold_only():
    actual, golden = with_relative_error("float16", 2e-3)
    assert not judge(actual, golden, dtype="float16").passed
    r = judge(actual, golden, dtype="float16", thresholds={"float16": 4e-3})
    assert r.passed and r.threshold == 4e-3 and r.mare_threshold == 4e-2
    assert r.thresholds_used["small_value"] == T.THREE_DIM["float16"].small_value
