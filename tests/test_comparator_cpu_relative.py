"""normal_range="cpu_relative": bounded at 10x the default thresholds, licensed only by a sound CPU
control, and the summary says which rule it applied. Also the bias warning's two directions."""

from __future__ import annotations

import math

import torch

from tools import thresholds as T
from tools.compare import CompareOptions, compare_tensors

THRESHOLD = T.THREE_DIM["float16"].precision
RELATIVE = CompareOptions(normal_range="cpu_relative")


def _golden(n: int = 4096, seed: int = 0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return 1 + torch.rand(n, generator=gen, dtype=torch.float64)  # all in the normal range


def _off_by(golden: torch.Tensor, relative: float, seed: int) -> torch.Tensor:
    """golden * (1 +- relative), the sign random per element, rounded to float16."""
    gen = torch.Generator().manual_seed(seed)
    sign = torch.randint(0, 2, golden.shape, generator=gen, dtype=torch.float64) * 2 - 1
    return (golden * (1 + relative * sign)).half()


def _says_cpu_relative_is_advised(warnings: list[str]) -> bool:
    return any("normal_range='cpu_relative' judges" in w for w in warnings)


def test_all_zero_output_never_passes_by_an_all_zero_control():
    golden = _golden()
    zeros = torch.zeros(golden.shape, dtype=torch.float16)
    r = compare_tensors(zeros, golden, zeros.clone(), options=RELATIVE)
    assert not r.passed and r.dimensions.normal_range is False
    assert "cpu_relative not applied" in r.summary and "beyond 10x" in r.summary
    assert not r.summary.startswith("PASS")
    assert not _says_cpu_relative_is_advised(r.warnings)
    assert any("would not be sound" in w for w in r.warnings)


def test_a_control_overflowed_to_inf_licenses_nothing():
    golden = _golden()
    zeros = torch.zeros(golden.shape, dtype=torch.float16)
    inf = torch.full(golden.shape, math.inf, dtype=torch.float16)
    r = compare_tensors(zeros, golden, inf, options=RELATIVE)
    assert (
        not r.passed and "the CPU control and the golden disagree about Inf / overflow at 4,096 element(s)" in r.summary
    )
    assert not _says_cpu_relative_is_advised(r.warnings)


def test_a_control_with_nan_where_the_golden_has_none_licenses_nothing():
    golden = _golden()
    cpu = _off_by(golden, 4 * THRESHOLD, seed=1)
    cpu[::7] = math.nan
    r = compare_tensors(_off_by(golden, 4 * THRESHOLD, seed=2), golden, cpu, options=RELATIVE)
    assert not r.passed and "NaN positions differ from the golden's" in r.summary


def test_a_sound_control_relaxes_up_to_the_bound_and_the_summary_states_the_rule():
    golden = _golden()
    cpu = _off_by(golden, 8 * THRESHOLD, seed=1)  # the CPU itself errs at 8x the threshold
    absolute = compare_tensors(cpu.clone(), golden, cpu)
    assert not absolute.passed and _says_cpu_relative_is_advised(absolute.warnings)

    within = compare_tensors(_off_by(golden, 9 * THRESHOLD, seed=2), golden, cpu, options=RELATIVE)
    assert within.passed, within.summary
    assert "normal range by cpu_relative: MERE" in within.summary
    assert "<= 1.5 x cpu" in within.summary and "(10x the default thresholds)" in within.summary
    assert f"< {THRESHOLD:.3g}" not in within.summary  # never claims the absolute threshold held
    assert within.thresholds_used["cpu_relative_mere_bound"] == 10 * THRESHOLD

    beyond = compare_tensors(_off_by(golden, 11 * THRESHOLD, seed=2), golden, cpu, options=RELATIVE)
    assert beyond.mere / beyond.cpu_control.mere <= 1.5  # the ratio alone would pass it
    assert not beyond.passed and "not MERE" in beyond.summary and "< 0.00977" in beyond.summary


def test_without_a_control_cpu_relative_is_not_applied():
    golden = _golden()
    r = compare_tensors(_off_by(golden, 2 * THRESHOLD, seed=2), golden, None, options=RELATIVE)
    assert not r.passed and "cpu_relative not applied: there is no CPU control" in r.summary


def test_bias_warning_names_its_direction():
    golden = _golden()
    nearest = golden.half()
    up = torch.nextafter(nearest, torch.full_like(nearest, math.inf))  # every element one ulp away from 0
    r = compare_tensors(up, golden, nearest)
    away = [w for w in r.warnings if "away from zero" in w]
    assert away and "inflates magnitudes" in away[0] and "truncates" not in away[0]
    down = torch.nextafter(nearest, torch.zeros_like(nearest))
    toward = [w for w in compare_tensors(down, golden, nearest).warnings if "err toward zero" in w]
    assert toward and "truncates" in toward[0]
