"""Invariants of the comparator, checked on generated data (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tests.helpers import assert_nearly_equal
from tools.compare import CompareOptions, compare_tensors
from tools.thresholds import STORAGE_DTYPES

DTYPES = ["float16", "bfloat16", "float32"]
RANGE = {"float16": 1e5, "bfloat16": 1e38, "float32": 1e38}


def goldens(dtype_name, specials=True):
    bound = RANGE[dtype_name]
    finite = st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=64)
    elements = (
        st.one_of(finite, st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324])) if specials else finite
    )
    return arrays(np.float64, st.integers(1, 64), elements=elements)


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)  # CI must be reproducible


@SETTINGS
@given(st.sampled_from(DTYPES), st.data())
def test_golden_rounded_to_the_dtype_always_passes(dtype_name, data):
    golden = torch.from_numpy(data.draw(goldens(dtype_name)))
    rounded = golden.to(STORAGE_DTYPES[dtype_name])
    with_cpu = compare_tensors(rounded, golden, rounded.clone(), dtype=dtype_name)
    without_cpu = compare_tensors(rounded, golden, None, dtype=dtype_name)
    assert with_cpu.passed, with_cpu.summary
    assert without_cpu.passed, without_cpu.summary


@SETTINGS
@given(st.sampled_from(DTYPES), st.data())
def test_golden_rounded_passes_catlass_and_assert_close_in_range(dtype_name, data):
    golden = torch.from_numpy(data.draw(goldens(dtype_name, specials=False)))
    rounded = golden.to(STORAGE_DTYPES[dtype_name])
    if not torch.isfinite(rounded).all():
        return  # overflow to Inf against a finite golden: an error by CompareData's arithmetic
    for standard in ("catlass", "assert_close"):
        r = compare_tensors(
            rounded,
            golden,
            rounded.clone(),
            dtype=dtype_name,
            options=CompareOptions(standard=standard, compute_num=4096),
        )
        assert r.passed, r.summary


@SETTINGS
@given(st.sampled_from(DTYPES), st.data())
def test_mere_never_exceeds_mare_and_counts_are_bounded(dtype_name, data):
    golden = torch.from_numpy(data.draw(goldens(dtype_name)))
    noise = torch.from_numpy(data.draw(arrays(np.float64, golden.shape, elements=st.floats(-1, 1))))
    actual = (golden * (1 + noise)).to(STORAGE_DTYPES[dtype_name])
    r = compare_tensors(actual, golden, None, dtype=dtype_name)
    assert r.mere <= r.mare or (isinstance(r.mere, float) and math.isclose(r.mere, r.mare))
    assert 0 <= r.mismatch_count <= r.total_count == golden.numel()
    assert r.small_value_total_count + r.cancel_total_count + r.normal_total_count <= r.total_count
    if r.passed:
        assert r.nan_mismatch_count == 0


@SETTINGS
@given(st.sampled_from(DTYPES), st.data())
def test_candidate_equal_to_cpu_passes_the_ratio_dimensions(dtype_name, data):
    golden = torch.from_numpy(data.draw(goldens(dtype_name)))
    noise = torch.from_numpy(data.draw(arrays(np.float64, golden.shape, elements=st.floats(-0.5, 0.5))))
    cpu = (golden + noise).to(STORAGE_DTYPES[dtype_name])
    r = compare_tensors(cpu.clone(), golden, cpu, dtype=dtype_name)
    assert r.dimensions.small_value and r.dimensions.cancellation
    assert r.small_value_error_count == r.small_value_cpu_error_count
    assert r.cancel_error_count == r.cancel_cpu_error_count


@SETTINGS
@given(st.data())
def test_results_do_not_depend_on_the_chunk_size(data):
    golden = torch.from_numpy(data.draw(goldens("float16")))
    noise = torch.from_numpy(data.draw(arrays(np.float64, golden.shape, elements=st.floats(-1e-2, 1e-2))))
    actual = (golden + noise).half()
    chunk = data.draw(st.integers(1, 17))
    a = compare_tensors(actual, golden, golden.half(), options=CompareOptions(chunk=chunk, top_k=0))
    b = compare_tensors(actual, golden, golden.half(), options=CompareOptions(top_k=0))
    assert_nearly_equal(a.model_dump(), b.model_dump())
