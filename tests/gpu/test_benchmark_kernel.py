"""benchmark_kernel on a real GPU (skipped without CUDA): the level-1 examples, repeated runs that must
agree, and cheating candidates that must be flagged. Self-contained; about a minute on an H200.
Each test prints what it measured (live, whatever pytest's capture setting)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests import bench_cheats
from tools.accuracy import run_accuracy
from tools.bench import stats
from tools.benchmark_kernel import benchmark_kernel
from tools.models.accuracy import RunAccuracyRequest
from tools.models.bench import BenchmarkRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

LEVEL1 = Path(__file__).resolve().parents[2] / "examples" / "level1"
CORRECT = [
    ("01_square_matmul", "candidate.py"),
    ("06_matmul_large_k", "candidate_kahan.py"),
    ("19_relu", "candidate.py"),
    ("23_softmax", "candidate.py"),
    ("47_sum_reduction", "candidate.py"),
]
FAST = {"repetitions": 50, "warmup": 5, "input_sets": 2, "backend": "cuda"}
BIG_RELU = bench_cheats.relu_task(2048, 4096)  # 32 MiB in, 32 MiB out: ~14 us at the H200's roofline
FIRST: dict = {}  # problem -> its first result, for the agreement test


def _line(name: str, result) -> str:
    if result.speedup is None:
        return f"{name}: {result.summary}"
    r, c, s = result.reference, result.candidate, result.speedup
    roof = result.roofline.candidate if result.roofline else None
    fraction = (
        f", {roof.fraction_of_roofline:.0%} of roofline ({roof.achieved_gbps:.0f} GB/s)"
        if roof and roof.fraction_of_roofline is not None and roof.achieved_gbps is not None
        else ", roofline not checked"
    )
    flags = f" FLAGS {[f.id for f in result.flags]}" if result.flags else ""
    if result.launch is not None:
        lt = result.launch
        flags += (
            f"; back to back with launch: ref {lt.reference_call_us:.1f} us, cand {lt.candidate_call_us:.1f} us "
            f"({lt.speedup:.3f}x), host launch ref {lt.reference_host_us:.1f} us, cand {lt.candidate_host_us:.1f} us"
        )
    alone = result.reference_alone
    if alone is not None:  # the evidence for thresholds.REFERENCE_SLOWED_RATIO
        flags += f"; reference alone {alone.median_ms * 1e3:.2f} us (beside/alone {r.median_ms / alone.median_ms:.3f})"
    return (
        f"{name}: ref {r.median_ms * 1e3:.2f} us (CV {r.cv:.2f}), cand {c.median_ms * 1e3:.2f} us (CV {c.cv:.2f}), "
        f"speedup {s.value:.3f} [{s.low:.3f}, {s.high:.3f}] range [{s.range_low:.3f}, {s.range_high:.3f}]"
        f"{fraction}; repeated-input {result.repeated_input_median_ms * 1e3:.2f} us, synchronised "
        f"{result.synchronized_median_ms * 1e3:.2f} us{flags}"
    )


def _show(capsys, name: str, result) -> None:
    with capsys.disabled():
        print(f"\n  [bench] {_line(name, result)}")


@pytest.mark.parametrize("problem, candidate", CORRECT, ids=[p for p, _ in CORRECT])
def test_level1_examples_give_trusted_speedups(problem, candidate, capsys):
    folder = LEVEL1 / problem
    accepted = run_accuracy(
        RunAccuracyRequest(
            reference=str(folder / "reference.py"), candidate=str(folder / candidate), backend="cuda", num_seeds=2
        )
    )
    assert accepted.verdict == "pass", accepted.summary
    result = benchmark_kernel(BenchmarkRequest(run_id=accepted.run_id, **FAST))
    _show(capsys, problem, result)
    FIRST[problem] = result
    assert result.verdict == "ok", [f.message for f in result.flags] or result.summary
    assert result.run_id == accepted.run_id and result.method.startswith("cuda_events")
    assert result.output_check.final_outputs in ("identical", "within_accuracy")
    assert result.output_check.stale_repetitions == 0 and result.settings.inputs_varied
    assert result.roofline.min_time_ms is not None and result.roofline.candidate.fraction_of_roofline <= 1.1
    assert result.reference.n == result.candidate.n == FAST["repetitions"]


@pytest.mark.parametrize("problem", ["01_square_matmul", "19_relu"])
def test_repeated_runs_agree_within_their_spread(problem, capsys):
    folder = LEVEL1 / problem
    again = benchmark_kernel(
        BenchmarkRequest(reference=str(folder / "reference.py"), candidate=str(folder / "candidate.py"), **FAST)
    )
    _show(capsys, f"{problem} (again)", again)
    first = FIRST.get(problem) or benchmark_kernel(
        BenchmarkRequest(reference=str(folder / "reference.py"), candidate=str(folder / "candidate.py"), **FAST)
    )
    assert again.verdict == first.verdict == "ok"
    assert stats.agree(first.speedup, again.speedup), (first.speedup, again.speedup)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("CACHED_OUTPUT", "stale_output"),
        ("SKIP_SAME_BUFFER", "stale_output"),
        ("SKIP_UNCHANGED_INPUT", "faster_on_repeated_inputs"),
        ("SIDE_STREAM", "side_stream"),
        ("SLOWED_REFERENCE", "reference_slowed"),
        ("PATCHED_CLOCK", "timer_patched"),
    ],
)
def test_cheating_candidates_are_flagged(name, expected, capsys):
    accepted = run_accuracy(
        RunAccuracyRequest(reference=BIG_RELU, candidate=getattr(bench_cheats, name), backend="cuda", num_seeds=2)
    )
    assert accepted.verdict == "pass", accepted.summary  # each cheat passes accuracy
    result = benchmark_kernel(BenchmarkRequest(run_id=accepted.run_id, **FAST))
    _show(capsys, f"cheat {name}", result)
    assert result.verdict == "flagged" and expected in {f.id for f in result.flags}, result.summary


def test_a_patched_event_clock_does_not_change_the_candidates_time(capsys):
    """PATCHED_CLOCK makes every event pair that ends right after its forward read a tenth of its time: the
    job records and reads its events through the calls bound before any task code ran."""
    honest = benchmark_kernel(BenchmarkRequest(reference=BIG_RELU, candidate=bench_cheats.HONEST, **FAST))
    cheat = benchmark_kernel(BenchmarkRequest(reference=BIG_RELU, candidate=bench_cheats.PATCHED_CLOCK, **FAST))
    _show(capsys, "honest", honest)
    _show(capsys, "patched clock", cheat)
    assert "torch.cuda.Event.elapsed_time" in next(f for f in cheat.flags if f.id == "timer_patched").message
    assert cheat.candidate.median_ms > 0.7 * honest.candidate.median_ms, (honest.summary, cheat.summary)


def test_the_honest_big_relu_is_not_flagged_and_near_its_roofline(capsys):
    result = benchmark_kernel(BenchmarkRequest(reference=BIG_RELU, candidate=bench_cheats.HONEST, **FAST))
    _show(capsys, "honest 2048x4096 relu", result)
    assert result.verdict == "ok", [f.message for f in result.flags]
    assert 0.3 < result.roofline.candidate.fraction_of_roofline <= 1.1


def test_a_microsecond_kernel_reports_its_launch_beside_its_device_time(capsys):
    """For a tiny forward the launch, not the kernel, decides what a caller waits for: both are reported,
    and the summary says which the speedup is."""
    result = benchmark_kernel(
        BenchmarkRequest(reference=bench_cheats.relu_task(1, 1024), candidate=bench_cheats.HONEST, **FAST)
    )
    _show(capsys, "1x1024 relu", result)
    launch = result.launch
    assert result.speedup is not None and launch is not None, result.summary
    assert 0 < launch.reference_host_us and 0 < launch.candidate_host_us
    assert launch.candidate_call_us >= result.candidate.median_ms * 1e3 * 0.5  # a call is at least the kernel
    assert "launch included" in result.summary
    launch_bound = any(w.startswith("launch-bound") for w in result.warnings)
    assert launch_bound == (launch.speedup < 1 <= result.speedup.value)


def test_cuda_graphs_and_warm_cache(capsys):
    folder = LEVEL1 / "19_relu"
    base = {"reference": str(folder / "reference.py"), "candidate": str(folder / "candidate.py"), **FAST}
    graphs = benchmark_kernel(BenchmarkRequest(cuda_graphs=True, **base))
    _show(capsys, "19_relu cuda_graphs", graphs)
    if graphs.verdict == "ok":  # the job's cgroup counts the driver's shared mappings: allowed
        assert "graph" in graphs.method, graphs.summary
    else:  # no job cgroup: refused up front, with the reason (it crashed in the driver as "out of memory")
        assert graphs.error is not None and "shared anonymous memory" in graphs.error.message, graphs
        cgroup = graphs.isolation.get("cgroup")
        assert cgroup is None or not cgroup.active, graphs.isolation
    warm = benchmark_kernel(BenchmarkRequest(flush_l2=False, **base))
    _show(capsys, "19_relu warm L2", warm)
    assert warm.verdict == "ok" and "warm L2" in warm.method and not warm.roofline.bandwidth_checked
    assert any("warm L2" in w for w in warm.warnings)


def test_an_inaccurate_candidate_is_not_timed():
    folder = LEVEL1 / "01_square_matmul"
    result = benchmark_kernel(
        BenchmarkRequest(
            reference=str(folder / "reference.py"), candidate=str(folder / "candidate_fp16_accumulator.py"), **FAST
        )
    )
    assert result.verdict == "not_accurate" and result.run_id and result.speedup is None
    assert "explain_failure" in result.next_step
