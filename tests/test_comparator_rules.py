"""NaN / Inf / integer / bool rules, multi-output, structure, chunking, the worst elements."""

from __future__ import annotations

import json
import math

import pytest
import torch

from tests.helpers import assert_nearly_equal
from tools.compare import CompareInputError, CompareOptions, compare_outputs, compare_tensors

NAN, INF = float("nan"), float("inf")


def judge(actual, golden, cpu=None, dtype=None, **options):
    return compare_tensors(actual, golden, cpu, dtype=dtype, options=CompareOptions(**options))


def f16(*values):
    return torch.tensor(values, dtype=torch.float16)


def f64(*values):
    return torch.tensor(values, dtype=torch.float64)


# --- NaN -------------------------------------------------------------------------------------


def test_matching_nan_positions_pass_and_drop_out():
    r = judge(f16(1.0, NAN, 2.0), f64(1.0, NAN, 2.0), f16(1.0, NAN, 2.0))
    assert r.passed and r.nan_mismatch_count == 0 and r.mare == 0


@pytest.mark.parametrize(("actual", "golden"), [((1.0, NAN), (1.0, 2.0)), ((1.0, 2.0), (1.0, NAN))])
def test_nan_position_mismatch_fails_either_way(actual, golden):
    r = judge(f16(*actual), f64(*golden), f16(*golden))
    assert not r.passed and r.dimensions.nan_positions is False and r.nan_mismatch_count == 1
    assert r.worst[0].index == [1] and r.worst[0].domain == "nan"
    assert "NaN positions differ" in r.summary


def test_nan_mismatch_fails_even_if_cpu_has_the_same_nan():
    """NaN positions are judged against the golden alone (the spec: they must be identical)."""
    r = judge(f16(1.0, NAN), f64(1.0, 2.0), f16(1.0, NAN))
    assert not r.passed


# --- Inf -------------------------------------------------------------------------------------


def test_same_sign_inf_pair_matches():
    r = judge(f16(INF, -INF, 1.0), f64(INF, -INF, 1.0), f16(INF, -INF, 1.0))
    assert r.passed and r.saturated_count == 0


def test_opposite_sign_inf_fails():
    assert not judge(f16(INF, 1.0), f64(-INF, 1.0)).passed


def test_one_sided_inf_is_compared_as_dtype_max():
    # fp16 overflow: the golden 70000 is beyond float16's 65504, the kernel saturates to Inf
    r = judge(f16(INF, 1.0), f64(70000.0, 1.0), f16(INF, 1.0))
    assert r.passed, r.summary
    # the golden 60000 is in range: Inf compared as 65504 is 9% off
    r = judge(f16(INF, 1.0), f64(60000.0, 1.0))
    assert not r.passed and r.saturated_count == 1
    assert r.mare == pytest.approx((65504 - 60000) / 60000, rel=1e-4)
    # a golden Inf (e.g. log(0)) against a finite kernel output of 100: far off
    assert not judge(f16(100.0, 1.0), f64(INF, 1.0)).passed


# --- integers and bool ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8])
@pytest.mark.parametrize("standard", ["three_dim", "catlass", "assert_close"])
def test_integers_must_match_exactly(dtype, standard):
    golden = torch.arange(100).to(dtype)
    assert judge(golden.clone(), golden, standard=standard).passed
    wrong = golden.clone()
    wrong[42] += 1
    r = judge(wrong, golden, golden.clone(), standard=standard)
    assert not r.passed and r.mismatch_count == 1 and r.threshold == 0
    assert r.worst[0].index == [42] and r.dimensions.exact is False


def test_integer_output_against_float_golden_is_exact_too():
    golden = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    assert judge(torch.tensor([1, 2, 3], dtype=torch.int8), golden, dtype="int8").passed
    assert not judge(torch.tensor([1, 2, 4], dtype=torch.int8), golden, dtype="int8").passed


def test_bool_exact():
    g = torch.tensor([True, False, True])
    assert judge(g.clone(), g).passed
    r = judge(torch.tensor([True, True, True]), g)
    assert not r.passed and r.mismatch_count == 1


# --- structure ---------------------------------------------------------------------------------


def test_shape_mismatch_is_a_verdict():
    r = judge(torch.zeros(4, 3, dtype=torch.float16), torch.zeros(3, 4, dtype=torch.float64))
    assert not r.passed and r.error_kind == "shape_mismatch" and "(4, 3)" in r.error_msg


def test_dtype_mismatch_is_a_verdict():
    r = judge(torch.zeros(3), torch.zeros(3, dtype=torch.float64), dtype="float16")
    assert not r.passed and r.error_kind == "dtype_mismatch"
    assert "float32" in r.error_msg and "float16" in r.error_msg


def test_not_a_tensor_is_a_verdict():
    r = judge(None, torch.zeros(3, dtype=torch.float64), dtype="float16")
    assert not r.passed and r.error_kind == "not_a_tensor"


def test_lossless_upcast_accepted_only_when_asked_and_exact():
    golden = torch.randn(64, dtype=torch.float64)
    dumped = golden.to(torch.bfloat16).float()  # numpy has no bfloat16: dumps are float32
    assert judge(dumped, golden, dtype="bfloat16").error_kind == "dtype_mismatch"
    assert judge(dumped, golden, dtype="bfloat16", allow_lossless_upcast=True).passed
    lossy = golden.float()
    r = judge(lossy, golden, dtype="bfloat16", allow_lossless_upcast=True)
    assert r.error_kind == "dtype_mismatch" and "not all exact" in r.error_msg


def test_bad_golden_or_cpu_is_the_callers_error():
    g = torch.zeros(3, dtype=torch.float64)
    with pytest.raises(CompareInputError, match="CPU control shape"):
        judge(torch.zeros(3), g, torch.zeros(4))
    with pytest.raises(CompareInputError, match="not a tensor"):
        judge(torch.zeros(3), [0, 0, 0])
    with pytest.raises(CompareInputError, match="unknown dtype"):
        judge(torch.zeros(3), g, dtype="float12")
    with pytest.raises(CompareInputError, match="unknown standard"):
        judge(torch.zeros(3), g, standard="allclose")
    with pytest.raises(CompareInputError, match="complex"):
        judge(torch.zeros(3, dtype=torch.complex64), g.to(torch.complex128))


def test_empty_and_zero_dim_tensors():
    empty = judge(torch.zeros(0, 5), torch.zeros(0, 5, dtype=torch.float64))
    assert empty.passed and empty.total_count == 0 and "0 elements" in empty.summary
    scalar = judge(torch.tensor(1.5), torch.tensor(1.5, dtype=torch.float64))
    assert scalar.passed and scalar.total_count == 1 and scalar.shape == []
    bad = judge(torch.tensor(2.0), torch.tensor(1.5, dtype=torch.float64))
    assert not bad.passed and bad.worst[0].index == []


# --- multi-output ----------------------------------------------------------------------------


def test_tuple_outputs_each_judged_and_all_must_pass():
    g = (f64(1.0, 2.0), f64(3.0, 4.0))
    good = (g[0].half(), g[1].half())
    report = compare_outputs(good, g, good)
    assert report.passed and [o.name for o in report.outputs] == ["output[0]", "output[1]"]
    bad = (g[0].half(), f16(3.0, 5.0))
    report = compare_outputs(bad, g, good)
    assert not report.passed and report.verdict == "fail"
    assert [o.passed for o in report.outputs] == [True, False]
    assert "1 of 2 outputs fail" in report.summary and "output[1]" in report.summary


def test_dict_outputs_named_by_key_and_per_output_dtype():
    g = {"q": f64(1.0), "k": torch.tensor([7])}
    a = {"q": f16(1.0), "k": torch.tensor([7])}
    report = compare_outputs(a, g, dtype={"output['q']": "float16"})
    assert report.passed and [o.name for o in report.outputs] == ["output['q']", "output['k']"]
    assert report.outputs[1].dtype == "int64"


def test_wrong_number_of_outputs_is_a_verdict():
    report = compare_outputs(f16(1.0), (f64(1.0), f64(2.0)))
    assert not report.passed and report.error_kind == "output_count_mismatch"


# --- chunking, worst elements, summary -----------------------------------------------------------


def test_chunked_result_equals_single_chunk():
    gen = torch.Generator().manual_seed(1)
    golden = torch.randn(10_000, generator=gen, dtype=torch.float64) * 1e-2
    golden[::97] = 0.0
    actual = (golden + torch.randn(10_000, generator=gen, dtype=torch.float64) * 1e-4).half()
    actual[5] = NAN
    cpu = golden.half()
    whole = judge(actual, golden, cpu, chunk=1 << 20)
    pieces = judge(actual, golden, cpu, chunk=777)
    assert_nearly_equal(whole.model_dump(), pieces.model_dump())


def test_worst_elements_are_the_largest_violations_with_index_and_values():
    golden = torch.ones(6, 7, dtype=torch.float64)
    actual = golden.half()
    actual[2, 3] = 1.5
    actual[4, 1] = 1.25
    r = judge(actual, golden, golden.half(), top_k=3)
    assert [w.index for w in r.worst[:2]] == [[2, 3], [4, 1]]
    w = r.worst[0]
    assert (w.actual, w.golden, w.cpu) == (1.5, 1.0, 1.0)
    assert w.rel_error == pytest.approx(0.5, rel=1e-6) and w.violation > 1
    assert "Mismatched elements: 2 / 42" in r.summary and "(2, 3)" in r.summary


def test_nan_and_inf_values_serialize_as_valid_json():
    r = judge(f16(NAN, 1.0), f64(1.0, 1.0))

    def reject(constant):
        raise AssertionError(f"bare {constant} in JSON")

    data = json.loads(r.model_dump_json(), parse_constant=reject)
    assert data["worst"][0]["actual"] == "NaN" and data["worst"][0]["violation"] == "Infinity"
    assert math.isnan(float(r.worst[0].actual))


def test_cpu_control_failing_too_is_said_plainly():
    """Zero-mean data puts goldens just above the small-value threshold."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(128, 512, generator=gen).float()
    y = torch.randn(512, 128, generator=gen).float()
    golden = x.double() @ y.double()
    cpu = x @ y
    r = judge(cpu.clone(), golden, cpu)
    assert r.cpu_control is not None
    if not r.cpu_control.normal_passed:  # the CPU's own fp32 matmul fails the absolute MARE
        assert any("CPU same-precision control also fails" in w for w in r.warnings)
        relative = judge(cpu.clone(), golden, cpu, normal_range="cpu_relative")
        assert relative.passed
    else:
        assert r.passed


def test_round_toward_zero_output_passes_but_warns():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 256, generator=gen).half()
    y = torch.randn(256, 64, generator=gen).half()
    golden = x.double() @ y.double()
    f32 = x.float() @ y.float()
    nearest = f32.half()
    toward_zero = torch.where(
        nearest.float().abs() > f32.abs(), torch.nextafter(nearest, torch.zeros_like(nearest)), nearest
    )
    r = judge(toward_zero, golden, nearest)
    assert r.passed  # one rtz error is below one ulp, under the fp16 MERE threshold
    assert r.bias.toward_zero_fraction > 0.95
    assert any("toward zero" in w for w in r.warnings)
    clean = judge(nearest.clone(), golden, nearest)
    assert not any("toward zero" in w for w in clean.warnings)


@pytest.mark.parametrize("standard", ["three_dim", "catlass", "assert_close"])
def test_matching_nans_and_infs_in_an_error_free_chunk_never_crowd_out_real_errors(standard):
    """A chunk of matching NaN / Inf pairs and no error, then a chunk with one real error: the
    worst-element list names the real error, not the matching pairs."""
    golden = torch.ones(16, dtype=torch.float64)
    golden[:4] = math.nan
    golden[4:8] = math.inf
    actual = golden.half()
    actual[12] = 2.0
    r = judge(actual, golden, golden.half(), standard=standard, chunk=8, top_k=2)
    assert not r.passed
    assert [w.index for w in r.worst] == [[12]], r.worst


def test_custom_threshold_above_ten_times_the_default_is_warned_not_refused():
    golden = torch.linspace(1, 2, 64, dtype=torch.float64)
    actual = (golden * 1.01).half()
    loose = judge(actual, golden, golden.half(), thresholds={"float16": 0.05})  # 51x the default
    assert loose.passed and any("advises against more than 10x" in w for w in loose.warnings), loose.warnings
    moderate = judge(actual, golden, golden.half(), thresholds={"float16": 0.005})  # 5x
    assert not any("advises against" in w for w in moderate.warnings)
