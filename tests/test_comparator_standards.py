"""The catlass and assert_close standards, selected by name, on the same result model."""

from __future__ import annotations

import pytest
import torch

from tools.compare import CompareInputError, CompareOptions, compare_tensors
from tools.thresholds import CATLASS_RTOL


def judge(actual, golden, cpu=None, dtype=None, **options):
    return compare_tensors(actual, golden, cpu, dtype=dtype, options=CompareOptions(**options))


# --- catlass -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "compute_num", "rtol"),
    [
        ("float16", 2047, 1 / 256),
        ("float16", 2048, 1 / 128),
        ("float32", 100, 1 / 256),
        ("float32", 65536, 1 / 128),
        ("bfloat16", 2047, 1 / 128),
        ("bfloat16", 2048, 1 / 64),
    ],
)
def test_catlass_rtol_by_compute_num_and_dtype(dtype, compute_num, rtol):
    g = torch.ones(4, dtype=torch.float64)
    r = judge(g.to(getattr(torch, dtype)), g, standard="catlass", compute_num=compute_num)
    assert r.threshold == rtol == r.details.rtol and r.passed
    assert r.details.compute_num == compute_num


def test_catlass_unknown_compute_num_uses_strict_rtol_and_says_so():
    g = torch.ones(4, dtype=torch.float64)
    r = judge(g.half(), g, standard="catlass")
    assert r.threshold == CATLASS_RTOL["default"][0]
    assert any("computeNum unknown" in w for w in r.warnings)


def test_catlass_compare_data_rule_and_error_indices():
    rtol = 1 / 256
    golden = torch.tensor([0.5, 0.5, 4.0, 4.0, 0.0], dtype=torch.float64)
    # |a - e| <= rtol * max(1, |e|): bound rtol for |e| < 1, rtol*|e| above
    actual = torch.tensor(
        [0.5 + 0.9 * rtol, 0.5 + 1.1 * rtol, 4.0 + 0.9 * 4 * rtol, 4.0 + 1.1 * 4 * rtol, 0.0],
        dtype=torch.float64,
    ).float()
    r = judge(actual, golden, standard="catlass", compute_num=16)
    assert not r.passed and r.mismatch_count == 2
    assert r.details.error_indices == [1, 3] and r.dimensions.tolerance is False


def test_catlass_error_metrics_ratios_against_cpu():
    golden = torch.ones(1000, dtype=torch.float64)
    cpu = torch.full((1000,), 1 + 1e-5, dtype=torch.float64).float()
    twice = torch.full((1000,), 1 + 2e-5, dtype=torch.float64).float()
    close = torch.full((1000,), 1 + 1.2e-5, dtype=torch.float64).float()
    bad = judge(twice, golden, cpu, standard="catlass", compute_num=16)
    assert bad.dimensions.tolerance is True and bad.dimensions.error_metrics is False and not bad.passed
    assert bad.details.metrics["mere_ratio"] == pytest.approx(2.0, rel=0.05)
    good = judge(close, golden, cpu, standard="catlass", compute_num=16)
    assert good.passed and good.details.metrics["rmse_ratio"] == pytest.approx(1.2, rel=0.05)


def test_catlass_without_cpu_checks_compare_data_only():
    g = torch.ones(8, dtype=torch.float64)
    r = judge(g.half(), g, standard="catlass", compute_num=8)
    assert r.passed and r.details.metrics is None and r.dimensions.error_metrics is None


def test_catlass_matching_nans_and_infs_are_not_errors():
    g = torch.tensor([float("nan"), float("inf"), 1.0], dtype=torch.float64)
    assert judge(g.half(), g, standard="catlass", compute_num=8).passed
    wrong = torch.tensor([1.0, float("inf"), 1.0]).half()
    assert not judge(wrong, g, standard="catlass", compute_num=8).passed


# --- assert_close --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dtype", "ok", "bad"),
    [
        ("float16", 1 + 2**-10, 1 + 3 * 2**-10),  # bound 1e-3 + 1e-3 * 1 = 2e-3
        ("float32", 1 + 1.5e-4, 1 + 3e-4),  # bound 2e-4
        ("bfloat16", 1.0, 1 + 2**-7),  # bound 2e-3, below one bf16 ulp
    ],
)
def test_assert_close_tolerances(dtype, ok, bad):
    g = torch.ones(3, dtype=torch.float64)
    t = getattr(torch, dtype)
    assert judge(torch.full((3,), ok, dtype=t), g, standard="assert_close").passed
    r = judge(torch.full((3,), bad, dtype=t), g, standard="assert_close")
    assert not r.passed and r.mismatch_count == 3 and "Mismatched elements: 3 / 3" in r.summary


def test_assert_close_expected_is_golden_rounded_to_dtype():
    golden = torch.tensor([1 + 2**-12], dtype=torch.float64)  # rounds to 1.0 in float16
    r = judge(torch.tensor([1.0], dtype=torch.float16), golden, standard="assert_close")
    assert r.passed and r.max_diff == 0


def test_assert_close_equal_nan_and_inf():
    g = torch.tensor([float("nan"), float("-inf"), 2.0], dtype=torch.float64)
    assert judge(g.float(), g, standard="assert_close").passed
    r = judge(torch.tensor([0.0, float("-inf"), 2.0]), g, standard="assert_close")
    assert not r.passed and r.nan_mismatch_count == 1
    assert not judge(torch.tensor([float("nan"), float("inf"), 2.0]), g, standard="assert_close").passed


def test_assert_close_refuses_dtypes_the_tutorial_does_not_define():
    g = torch.ones(2, dtype=torch.float64)
    with pytest.raises(CompareInputError, match="three_dim"):
        judge(g.to(torch.float8_e4m3fn), g, standard="assert_close")


@pytest.mark.parametrize("standard", ["three_dim", "catlass", "assert_close"])
def test_every_standard_returns_the_same_model(standard):
    g = torch.linspace(-2, 2, 50, dtype=torch.float64)
    r = judge(g.half(), g, g.half(), standard=standard, compute_num=4)
    assert r.standard == standard and r.passed and r.total_count == 50 and r.summary.startswith("PASS")
    assert r.cpu_control is not None


def test_the_schema_names_every_registered_standard():
    """A standard is registered once (tools/compare STANDARDS); the request schema's names must be those."""
    from typing import get_args

    from tools.compare import STANDARDS
    from tools.models.compare import StandardName

    assert set(get_args(StandardName)) == set(STANDARDS)
