"""The comparator never raises on any tensor pair, and its metrics keep a proven accuracy.

Property tests over every float dtype (bfloat16 and float8 included) with special values in all
three inputs: compare_outputs returns a report for every standard (or a CompareInputError where
the standard has no tolerances for the dtype), and `kernel-eval compare` exits 0, 1 or 2 with a
message, never a traceback.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tools import thresholds as T
from tools.cli import main
from tools.compare import CompareInputError, CompareOptions, compare_outputs, compare_tensors

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "hifloat32", "float8_e4m3fn", "float8_e5m2", "float64"]
STANDARDS = ["three_dim", "catlass", "assert_close"]
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True)


def _specials(storage: torch.dtype) -> list[float]:
    info = torch.finfo(storage)
    return [
        math.nan,
        math.inf,
        -math.inf,
        0.0,
        -0.0,
        info.max,
        -info.max,
        info.tiny,
        info.smallest_normal / 4,
        float(info.eps),
        1.0,
        -1.0,
        1e300,
        -1e300,
        5e-324,
    ]


def _values(storage: torch.dtype, size: int) -> st.SearchStrategy:
    finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)
    return arrays(np.float64, size, elements=st.one_of(finite, st.sampled_from(_specials(storage))))


@st.composite
def cases(draw):
    dtype_name = draw(st.sampled_from(FLOAT_DTYPES))
    storage = T.STORAGE_DTYPES[dtype_name]
    size = draw(st.integers(0, 40))
    golden = torch.from_numpy(draw(_values(storage, size)))
    actual = torch.from_numpy(draw(_values(storage, size))).to(storage)
    cpu = torch.from_numpy(draw(_values(storage, size))).to(storage) if draw(st.booleans()) else None
    return dtype_name, golden, actual, cpu


def _options(data) -> CompareOptions:
    return CompareOptions(
        standard=data.draw(st.sampled_from(STANDARDS)),
        normal_range=data.draw(st.sampled_from(["absolute", "cpu_relative"])),
        compute_num=data.draw(st.sampled_from([None, 16, 4096])),
        chunk=data.draw(st.sampled_from([7, 1 << 18])),
    )


def _tolerance_missing(options: CompareOptions, dtype_name: str) -> bool:
    return options.standard == "assert_close" and dtype_name not in ("float16", "bfloat16", "float32", "hifloat32")


@SETTINGS
@given(cases(), st.data())
def test_compare_outputs_never_raises_and_reports_json(case, data):
    dtype_name, golden, actual, cpu = case
    options = _options(data)
    try:
        report = compare_outputs(actual, golden, cpu, dtype=dtype_name, options=options)
    except CompareInputError as exc:
        assert _tolerance_missing(options, dtype_name), exc
        return
    assert report.summary.startswith(("PASS", "FAIL"))
    json.loads(report.model_dump_json())  # valid JSON: NaN / Inf carried as strings
    for result in report.outputs:
        assert result.summary.startswith(("PASS", "FAIL"))


INTEGER_DTYPES = ["int8", "uint8", "int16", "int32", "int64", "bool"]


@SETTINGS
@given(st.sampled_from(INTEGER_DTYPES), st.sampled_from(INTEGER_DTYPES + ["float16", "float64"]), st.data())
def test_integer_outputs_and_dtype_mismatches_never_raise(dtype_name, actual_dtype, data):
    size = data.draw(st.integers(0, 20))
    golden = torch.from_numpy(data.draw(_values(torch.float64, size)))
    raw = torch.from_numpy(data.draw(arrays(np.int64, size, elements=st.integers(-300, 300))))
    actual = raw.to(T.STORAGE_DTYPES[actual_dtype])
    cpu = raw.to(T.STORAGE_DTYPES[dtype_name]) if data.draw(st.booleans()) else None
    report = compare_outputs(actual, golden, cpu, dtype=dtype_name, options=_options(data))
    assert report.summary.startswith(("PASS", "FAIL"))
    json.loads(report.model_dump_json())


def test_bfloat16_opposite_sign_inf_is_a_failure_not_a_traceback():
    golden = torch.tensor([math.inf, 1.0, -2.0], dtype=torch.float64)
    actual = torch.tensor([-math.inf, 1.0, -2.0], dtype=torch.bfloat16)
    r = compare_tensors(actual, golden, actual.clone())
    assert not r.passed and r.dimensions.normal_range is False
    assert math.isfinite(r.mare) and r.mare == pytest.approx(2.0)  # -max against +max, no float32 overflow
    assert "MARE 2 >= 0.0781" in r.summary


def test_bfloat16_huge_error_against_a_small_golden_stays_finite():
    golden = torch.tensor([0.01, 1.0], dtype=torch.float64)
    actual = torch.tensor([1e38, 1.0], dtype=torch.bfloat16)
    r = compare_tensors(actual, golden, None)
    assert not r.passed and math.isfinite(r.mare) and r.mare > 1e39


@settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # capsys is read per example
@given(cases(), st.data())
def test_kernel_eval_compare_never_prints_a_traceback(tmp_path_factory, capsys, case, data):
    dtype_name, golden, actual, cpu = case
    directory = tmp_path_factory.mktemp("cmp")
    torch.save(golden, directory / "golden.pt")
    torch.save(actual, directory / "actual.pt")
    argv = [
        "compare",
        "--actual",
        str(directory / "actual.pt"),
        "--golden",
        str(directory / "golden.pt"),
        "--dtype",
        dtype_name,
        "--standard",
        data.draw(st.sampled_from(STANDARDS)),
        "--normal-range",
        data.draw(st.sampled_from(["absolute", "cpu_relative"])),
    ]
    if cpu is not None:
        torch.save(cpu, directory / "cpu.pt")
        argv += ["--cpu", str(directory / "cpu.pt")]
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 1, 2)
    assert "Traceback" not in out.out + out.err
    assert (out.out if code != 2 else out.err).strip()


# --- accuracy of MERE / MARE ---------------------------------------------------------------------


def _float64_metrics(actual: torch.Tensor, golden: torch.Tensor, dtype_name: str) -> tuple[float, float]:
    """MERE / MARE over the normal range, written independently, entirely in float64."""
    row = T.THREE_DIM[dtype_name]
    x = actual.double()
    rel = (x - golden).abs() / (golden.abs() + T.RELATIVE_ERROR_EPS)
    small = golden.abs() < row.small_value
    cancel = ~small & (golden.abs() < row.cancel_boundary) & (x.abs() < row.cancel_zero)
    normal = ~(small | cancel)
    return float(rel[normal].mean()), float(rel[normal].max())


@pytest.mark.parametrize("scale", [1e-2, 1.0, 300.0])
@pytest.mark.parametrize("noise", [1e-4, 9.7e-4, 3e-3])
def test_float16_metrics_stay_within_the_documented_bound(scale, noise):
    """float16 errors are evaluated in float32 and summed in float64: |computed - exact| <=
    2**-24 * (1 + 5 * exact) (docs/comparator.md, "Accuracy of the metrics")."""
    gen = torch.Generator().manual_seed(int(scale * 1000 + noise * 1e6))
    golden = torch.randn(1 << 18, generator=gen, dtype=torch.float64) * scale
    actual = (golden * (1 + noise * torch.randn(golden.shape, generator=gen, dtype=torch.float64))).half()
    r = compare_tensors(actual, golden, None, dtype="float16", options=CompareOptions(chunk=1 << 14))
    mere, mare = _float64_metrics(actual, golden, "float16")
    u = 2.0**-24
    assert abs(r.mere - mere) <= u * (1 + 5 * mere)
    assert abs(r.mare - mare) <= u * (1 + 5 * mare)


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float32"])
def test_wide_range_dtypes_are_evaluated_in_float64(dtype_name):
    gen = torch.Generator().manual_seed(3)
    golden = torch.randn(1 << 16, generator=gen, dtype=torch.float64)
    actual = (golden * (1 + 1e-3 * torch.randn(golden.shape, generator=gen, dtype=torch.float64))).to(
        T.STORAGE_DTYPES[dtype_name]
    )
    r = compare_tensors(actual, golden, None, dtype=dtype_name, options=CompareOptions(chunk=1 << 12))
    mere, mare = _float64_metrics(actual, golden, dtype_name)
    assert r.mere == pytest.approx(mere, rel=1e-12) and r.mare == pytest.approx(mare, rel=1e-12)


def test_kernel_eval_compare_on_the_reported_bfloat16_case(tmp_path, capsys):
    torch.save(torch.tensor([math.inf, 1.0], dtype=torch.float64), tmp_path / "golden.pt")
    torch.save(torch.tensor([-math.inf, 1.0], dtype=torch.bfloat16), tmp_path / "actual.pt")
    code = main(["compare", "--actual", str(tmp_path / "actual.pt"), "--golden", str(tmp_path / "golden.pt")])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("FAIL three_dim bfloat16 output: normal range: MARE 2 >= 0.0781")
